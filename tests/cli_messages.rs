//! The binary's messages for a newcomer's mistakes: numeric flags that name what they mean and
//! their bound, one usage for `tumble run`, warnings for a scene that does nothing and a batch
//! that classifies nothing, and counts that agree with their nouns.

#[path = "cli_support/mod.rs"]
mod cli_support;

use cli_support::{temp_dir, text, tumble};
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// Runs tumble, expects exit code `code`, prints and returns stderr.
fn stderr_of(args: &[&str], code: i32) -> String {
    let out = tumble(args);
    let stderr = text(&out.stderr);
    println!("tumble {}:\n{stderr}", args.join(" "));
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    stderr
}

const BALL: &str = "[[bodies]]\nname = \"ball\"\nmass = 1\n\
                    shape = { type = \"box\", half_extents = [0.1, 0.1, 0.1] }\n";

#[test]
fn a_zero_count_flag_says_at_least_one_and_what_it_counts() {
    let dir = temp_dir("messages-flags");
    let scene = write(&dir, "ball.toml", BALL);
    let scene = scene.to_str().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &["run", "--threads", "0", scene],
            "invalid value '0' for '--threads <N>': must be from 1 to 1024 (the number of worker \
             threads; leave --threads out for one per core)",
        ),
        (
            &["run", "--threads", "99999999999", scene],
            "must be from 1 to 1024 (the number of worker threads",
        ),
        (
            &["run", "--every", "0", scene],
            "'--every <K>': must be at least 1 (every K-th frame is taken; 1 takes them all)",
        ),
        (
            &["batch", "--trials", "0", scene],
            "'--trials <N>': must be at least 1 (the number of trials to run",
        ),
        (
            &["bench", "--repeat", "0", scene],
            "'--repeat <N>': must be at least 1 (how many times to run the scene)",
        ),
        (
            &["render", "--width", "0", scene],
            "'--width <W>': must be from 1 to 8192 (the picture's size in pixels)",
        ),
    ];
    for (args, expected) in cases {
        let stderr = stderr_of(args, 2);
        assert!(
            stderr.contains(expected),
            "expected {expected:?} in {stderr}"
        );
        assert!(!stderr.contains("18446744073709551615"), "{stderr}");
    }
}

#[test]
fn tumble_run_shows_one_usage_in_its_help_and_its_error() {
    let usage = "Usage: tumble run [OPTIONS] <SCENE>\n       tumble run [OPTIONS] --resume <DIR>";
    let stderr = stderr_of(&["run"], 2);
    assert!(stderr.contains(usage), "{stderr}");
    assert!(stderr.contains("<SCENE>"), "{stderr}");
    let help = tumble(&["run", "--help"]);
    let help = text(&help.stdout);
    println!("{help}");
    assert!(help.contains(usage), "{help}");
}

#[test]
fn an_empty_scene_is_warned_about_in_every_command_that_runs_it() {
    let dir = temp_dir("messages-empty");
    let scene = write(&dir, "empty.toml", "");
    let scene = scene.to_str().unwrap();
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let warning = format!(
        "warning: {scene}: the scene has no bodies, so nothing happens in the whole run: a \
         scene needs a [[bodies]] table, a [[lattices]] generator or a [[sources]] entry"
    );
    for args in [
        vec!["check", scene],
        vec!["run", scene, "--duration", "0.04", "--out", out],
        vec!["bench", scene, "--duration", "0.04", "--backend", "cpu"],
    ] {
        let stderr = stderr_of(&args, 0);
        assert!(stderr.contains(&warning), "{stderr}");
    }
    // A batch needs its table; an empty one still warns that nothing happens.
    let batch = write(&dir, "empty-batch.toml", "[batch]\ntrials = 2\n");
    let batch = batch.to_str().unwrap();
    let stderr = stderr_of(&["batch", batch, "--out", out], 0);
    assert!(
        stderr.contains(&format!("warning: {batch}: the scene has no bodies")),
        "{stderr}"
    );
    // A scene with a moving body says nothing.
    let ball = write(&dir, "ball.toml", BALL);
    let stderr = stderr_of(&["check", ball.to_str().unwrap()], 0);
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn a_batch_without_classify_names_the_files_it_will_not_write_and_the_key_to_add() {
    let dir = temp_dir("messages-classify");
    let scene = write(&dir, "drop.toml", &format!("{BALL}[batch]\ntrials = 2\n"));
    let scene = scene.to_str().unwrap();
    let out = dir.join("out");
    let warning = format!(
        "warning: {scene}: [batch] has no classify key, so tumble batch writes no poses.csv nor \
         poses.svg"
    );
    for args in [
        vec!["check", scene],
        vec!["batch", scene, "--out", out.to_str().unwrap()],
    ] {
        let stderr = stderr_of(&args, 0);
        assert!(stderr.contains(&warning), "{stderr}");
        assert!(
            stderr.contains("add classify = \"ball\" to [batch]"),
            "{stderr}"
        );
    }
    assert!(out.join("trials.csv").exists());
    assert!(!out.join("poses.csv").exists() && !out.join("poses.svg").exists());
}

#[test]
fn counts_of_one_are_singular() {
    let dir = temp_dir("messages-plural");
    let scene = write(&dir, "drop.toml", &format!("{BALL}[batch]\ntrials = 1\n"));
    let scene = scene.to_str().unwrap();
    let check = tumble(&["check", scene]);
    let stdout = text(&check.stdout);
    println!("{stdout}");
    assert!(stdout.contains("friction 0.5; 1 body)"), "{stdout}");
    let out = dir.join("out");
    let batch = tumble(&["batch", scene, "--out", out.to_str().unwrap()]);
    let stdout = text(&batch.stdout);
    println!("{stdout}");
    assert!(stdout.starts_with("Ran 1 trial of "), "{stdout}");
}

#[test]
fn the_cli_names_an_unclosed_array_and_a_non_utf8_byte() {
    let dir = temp_dir("messages-syntax");
    let scene = write(
        &dir,
        "open.toml",
        "[world]\nduration = 1\ngravity = [0, 0,\n\n[[bodies]]\nname = \"a\"\n",
    );
    let file = scene.display().to_string();
    let stderr = stderr_of(&["check", &file], 2);
    assert!(
        stderr.contains(&format!(
            "error: {file}:6:1: invalid TOML: missing comma between array elements"
        )) && stderr.contains(&format!(
            "the array `[` opened at {file}:3:11 is never closed"
        )),
        "{stderr}"
    );
    let latin1 = dir.join("latin1.toml");
    std::fs::write(&latin1, b"[[bodies]]\nname = \"caf\xe9\"\n").unwrap();
    let file = latin1.display().to_string();
    let stderr = stderr_of(&["run", &file], 2);
    assert!(
        stderr.contains(&format!(
            "error: {file}:2:12: the scene file is not UTF-8 text: byte 0xe9"
        )),
        "{stderr}"
    );
}
