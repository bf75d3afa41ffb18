//! `tumble compare` on the four balls (0.8 s: the landing, the roll and the hit): the CSV's
//! columns, one row per run, the event-driven run as the reference (zero error), and the LCP
//! method's state error at the end falling as its step falls. Bad options exit with code 2.

#[path = "cli_support/mod.rs"]
mod cli_support;

use cli_support::{temp_dir, text, tumble};

#[test]
fn compare_writes_the_csv_and_the_lcp_error_falls_with_the_step() {
    let dir = temp_dir("compare");
    let out = tumble(&[
        "compare",
        "scenes/experiments/four-balls.toml",
        "--methods",
        "event,lcp",
        "--steps",
        "0.02,0.01,0.005,0.0025",
        "--at",
        "0.5",
        "--duration",
        "0.8",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    eprintln!("{stdout}{}", text(&out.stderr));
    assert!(out.status.success());
    assert!(dir.join("compare.svg").is_file());
    let csv = std::fs::read_to_string(dir.join("compare.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "method,time_step,wall_s,max_penetration,energy_drift,state_error_at_0.5,\
         velocity_error_at_0.5,state_error_end,velocity_error_end,error"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 5);
    assert_eq!((rows[0][0], rows[0][1]), ("event", ""));
    assert_eq!(rows[0][7].parse::<f64>().unwrap(), 0.0);
    let errors: Vec<(f64, f64)> = rows[1..]
        .iter()
        .map(|r| {
            assert_eq!(r[0], "lcp");
            assert_eq!(r[9], "", "the run stopped: {}", r[9]);
            (r[1].parse().unwrap(), r[7].parse().unwrap())
        })
        .collect();
    eprintln!("lcp state error at the end against h: {errors:?}");
    for w in errors.windows(2) {
        assert!(w[1].0 < w[0].0 && w[1].1 < w[0].1, "{errors:?}");
    }
}

#[test]
fn compare_refuses_bad_options() {
    let dir = temp_dir("compare-bad");
    for args in [
        &["--steps", "0.01,-0.02"][..],
        &["--steps", "0"][..],
        &["--at", "5.0"][..],
        &["--methods", "verlet"][..],
        &["--duration", "nan"][..],
    ] {
        let mut all = vec![
            "compare",
            "scenes/experiments/four-balls.toml",
            "--out",
            dir.to_str().unwrap(),
        ];
        all.extend_from_slice(args);
        let out = tumble(&all);
        eprintln!("{args:?}: {}", text(&out.stderr));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}
