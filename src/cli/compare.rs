//! `tumble compare`: the event-driven run against Stewart & Trinkle's steps.

use crate::{default_out_dir, Failure, FormatChoice};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use tumble::output;
use tumble::scene;

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The scene file (TOML); its [world] method is overridden per run.
    scene: PathBuf,
    /// The methods to run (the event-driven run is made in any case: it is the reference).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "event,lcp")]
    methods: Vec<MethodChoice>,
    /// The LCP method's time steps h (s).
    #[arg(
        long,
        value_name = "H,...",
        value_delimiter = ',',
        default_value = "0.02,0.01,0.005,0.0025"
    )]
    steps: Vec<f64>,
    /// Times (s) at which the states are also compared, besides the end.
    #[arg(long, value_name = "T,...", value_delimiter = ',')]
    at: Vec<f64>,
    /// Simulated time in seconds, overriding the scene's [world] duration.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    duration: Option<f64>,
    /// Output directory [default: out/<scene file stem>-compare].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Also write compare.parquet beside compare.csv, with the same columns.
    #[arg(long, value_enum, default_value_t = FormatChoice::Csv)]
    format: FormatChoice,
}

/// A method named on the command line (`[world] method`'s values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MethodChoice {
    /// Event-driven impulses (Mirtich & Canny).
    Event,
    /// Stewart & Trinkle's time-stepping with an LCP per step.
    Lcp,
}

/// `tumble compare`: the runs, the CSV, the chart, the table.
pub fn compare(args: &CompareArgs) -> Result<(), Failure> {
    use tumble::compare::{self, report, CompareError, CompareOptions};
    let mut scene = scene::load(&args.scene)?;
    crate::warn(scene.warnings());
    if let Some(d) = args.duration {
        if !(d.is_finite() && d > 0.0) {
            return Err(Failure::invalid(format!(
                "--duration must be a finite number > 0 (got {d})"
            )));
        }
        scene.world.duration = d;
    }
    let options = CompareOptions {
        methods: args
            .methods
            .iter()
            .map(|m| match m {
                MethodChoice::Event => scene::Method::Event,
                MethodChoice::Lcp => scene::Method::Lcp,
            })
            .collect(),
        steps: args.steps.clone(),
        at: args.at.clone(),
    };
    let out = args.out.clone().unwrap_or_else(|| {
        let mut dir = default_out_dir(&args.scene).into_os_string();
        dir.push("-compare");
        PathBuf::from(dir)
    });
    let comparison = compare::compare(&scene, &options).map_err(|e| match e {
        CompareError::Invalid(m) => Failure::invalid(m),
        other => Failure::failed(other.to_string()),
    })?;
    output::create_dir(&out)?;
    let csv = out.join("compare.csv");
    report::write_csv(&csv, &comparison)
        .map_err(|e| Failure::failed(format!("cannot write {}: {e}", csv.display())))?;
    if args.format == FormatChoice::Parquet {
        tumble::parquet_tables::csv_to_parquet(&csv, &out.join("compare.parquet"))
            .map_err(|e| Failure::failed(e.to_string()))?;
    }
    let svg = out.join("compare.svg");
    compare::plot::write_plot(&svg, &comparison).map_err(Failure::failed)?;
    print!("{}", report::table(&comparison));
    println!(
        "{} over {} s; errors against the event-driven run. Wrote {} and {}.",
        args.scene.display(),
        scene.world.duration,
        csv.display(),
        svg.display()
    );
    Ok(())
}
