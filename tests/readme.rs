//! The README keeps its promise to a fresh machine: its first lines give the command that runs
//! the main job on a bundled scene and the command that runs the tests, the scene exists, CI
//! runs that very test command, and every scene the README's performance table names exists.
//! (A script once multiplied the performance table into 188 000 lines and dropped the rest.)

use std::path::Path;

fn read(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// The commands of the first fenced `sh` block, without their comments.
fn first_commands(readme: &str) -> Vec<String> {
    let start = readme.find("```sh").expect("the README has no sh block") + "```sh".len();
    let end = start
        + readme[start..]
            .find("```")
            .expect("the sh block is not closed");
    readme[start..end]
        .lines()
        .map(|l| l.split('#').next().unwrap().trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn the_first_lines_give_the_two_commands_and_ci_runs_the_test_command() {
    let readme = read("README.md");
    assert!(
        readme.starts_with("# tumble\n"),
        "the README does not start with its title"
    );
    assert!(
        readme.lines().count() < 1_000,
        "the README has {} lines",
        readme.lines().count()
    );
    let start = readme.find("```sh").unwrap();
    assert!(
        readme[..start].lines().count() < 30,
        "the two commands are not among the first lines"
    );
    let commands = first_commands(&readme);
    assert_eq!(commands.len(), 2, "{commands:?}");
    let run = &commands[0];
    assert!(run.starts_with("cargo run --release -- run "), "{run}");
    let scene = run
        .split_whitespace()
        .find(|w| w.ends_with(".toml"))
        .expect("the run command names no scene");
    assert!(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(scene).exists(),
        "{scene} is not bundled"
    );
    let test = &commands[1];
    let ci = read(".ci/run");
    assert!(
        ci.lines().any(|l| l.trim() == test),
        ".ci/run does not run the README's test command `{test}`"
    );
}

#[test]
fn the_performance_table_names_bundled_scenes_once_each() {
    let readme = read("README.md");
    let rows: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains(".toml"))
        .filter(|l| l.contains("funnel"))
        .collect();
    assert!(!rows.is_empty(), "no performance table");
    for row in &rows {
        let scene = row
            .split('|')
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .trim_end_matches(',');
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("scenes")
                .join(scene)
                .exists(),
            "the table names {scene}, which is not bundled"
        );
    }
    let mut unique = rows.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), rows.len(), "a row of the table is repeated");
}
