//! A run from file to result: a [`ScenarioSource`] is parsed once into a typed [`Scenario`];
//! the run, its baseline (the same scenario with power saving off, when a power mode is used)
//! and the savings at equal work all come from that one parse, with provenance built once.
//!
//! [`run`] does it all in one call; [`RunPlan`] gives the steps to callers that drive the runs
//! themselves (the Python binding checks for Ctrl-C and reports progress between slices).
//!
//! [`Scenario`]: crate::scenario::Scenario

use crate::build::BuildOptions;
use crate::output::RunOutput;
use crate::provenance::Provenance;
use crate::savings::{self, RunWork, SavingsRow};
use crate::scenario::{Baseline, ParsedScenario, ScenarioError, ScenarioSource};
use crate::sim::Simulation;

/// Whether to run a baseline beside the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BaselineChoice {
    /// Never.
    #[default]
    Never,
    /// When a station uses a power-save mode (there is something to turn off).
    IfPowerMode,
    /// Always: an error if no station uses a power-save mode.
    Required,
}

/// How to run a scenario: what does not come from the scenario file.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Overrides the scenario's seed.
    pub seed: Option<u64>,
    /// Whether to run the baseline too.
    pub baseline: BaselineChoice,
    /// Captures, time series, cancellation (the baseline records time series if the run
    /// does, and no captures).
    pub build: BuildOptions,
}

/// A parsed scenario ready to build: the run's provenance and, when asked for and a power mode
/// is used, its baseline with the baseline's text.
#[derive(Clone, Debug)]
pub struct RunPlan {
    /// The scenario as parsed, overrides applied.
    pub parsed: ParsedScenario,
    /// The run's provenance (the user's file, its SHA-256, the overrides, the seed).
    pub provenance: Provenance,
    /// The baseline, if one runs.
    pub baseline: Option<Baseline>,
    baseline_text: Option<String>,
}

impl RunPlan {
    /// Parse `source` (once) and decide on the baseline.
    pub fn new(source: ScenarioSource, seed: Option<u64>, choice: BaselineChoice) -> Result<RunPlan, ScenarioError> {
        let parsed = source.parse_keeping(choice != BaselineChoice::Never)?;
        let provenance = Provenance::of(&parsed.source, seed.unwrap_or(parsed.scenario.simulation.seed));
        let baseline = match choice {
            BaselineChoice::Never => None,
            _ => parsed.scenario.baseline(),
        };
        if baseline.is_none() && choice == BaselineChoice::Required {
            return Err(ScenarioError::general(
                &parsed.source.origin_name(),
                None,
                "no station uses a power-save mode, so there is no baseline to run (the accounting policies already cost this run's traffic)",
            ));
        }
        let baseline_text = match &baseline {
            None => None,
            Some(b) => Some(parsed.baseline_text(b).expect("the table is kept when a baseline may run")?),
        };
        Ok(RunPlan { parsed, provenance, baseline, baseline_text })
    }

    /// The seed both runs use.
    pub fn seed(&self) -> u64 {
        self.provenance.seed
    }

    /// The scenario that runs, as TOML (written as `scenario.toml` beside the results).
    pub fn effective_text(&self) -> &str {
        self.parsed.effective_text()
    }

    /// The baseline's scenario as TOML, if a baseline runs.
    pub fn baseline_text(&self) -> Option<&str> {
        self.baseline_text.as_deref()
    }

    /// Build the run.
    pub fn build_run(&self, opts: &BuildOptions) -> Result<Simulation, ScenarioError> {
        let origin = self.parsed.source.origin_name();
        Simulation::from_parsed(&self.parsed, &self.parsed.scenario, &origin, self.provenance.clone(), opts)
    }

    /// Build the baseline (None if none runs): the same seed, no captures, time series if
    /// `opts` asks for them. Its provenance names the user's file, hash and overrides, and
    /// says what was turned off.
    pub fn build_baseline(&self, opts: &BuildOptions) -> Option<Result<Simulation, ScenarioError>> {
        let b = self.baseline.as_ref()?;
        let origin = format!("{} (baseline: power saving off)", self.parsed.source.origin_name());
        let opts = BuildOptions { out_dir: None, pcaps: Vec::new(), timeseries: opts.timeseries, cancel: opts.cancel.clone() };
        let provenance = self.provenance.for_baseline(b.description());
        Some(Simulation::from_parsed(&self.parsed, &b.scenario, &origin, provenance, &opts))
    }
}

/// Everything one run of a scenario produced.
#[derive(Debug)]
pub struct RunSet {
    /// The run.
    pub run: RunOutput,
    /// Its baseline, if one ran.
    pub baseline: Option<RunOutput>,
    /// Each power mode's radio against the baseline (empty without a baseline).
    pub savings: Vec<SavingsRow>,
    /// What the run did not deliver against its baseline, in words (None if the same work).
    pub lost_work: Option<String>,
    /// The scenario that ran, as TOML.
    pub effective_text: String,
    /// The baseline's scenario, as TOML.
    pub baseline_text: Option<String>,
}

/// What can stop a run.
#[derive(Debug)]
pub enum RunError {
    /// The scenario is invalid.
    Scenario(ScenarioError),
    /// The simulation failed (e.g. a capture could not be written).
    Simulation(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Scenario(e) => e.fmt(f),
            RunError::Simulation(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for RunError {}

impl From<ScenarioError> for RunError {
    fn from(e: ScenarioError) -> Self {
        RunError::Scenario(e)
    }
}

/// The savings rows and lost work of `run` against `base`.
pub fn compare(run: &RunOutput, base: &RunOutput) -> (Vec<SavingsRow>, Option<String>) {
    let (r, b) = (RunWork::from(&run.summary), RunWork::from(&base.summary));
    (savings::savings(&r, &b), savings::lost_work(&r, &b))
}

/// Parse `source` once, run it and (per `options.baseline`) its baseline, and compute the
/// savings at equal work.
pub fn run(source: ScenarioSource, options: &RunOptions) -> Result<RunSet, RunError> {
    let plan = RunPlan::new(source, options.seed, options.baseline)?;
    let run = plan.build_run(&options.build)?.run().map_err(RunError::Simulation)?;
    let baseline = match plan.build_baseline(&options.build) {
        None => None,
        Some(sim) => Some(sim?.run().map_err(RunError::Simulation)?),
    };
    let (savings, lost_work) = match &baseline {
        Some(b) => compare(&run, b),
        None => (Vec::new(), None),
    };
    Ok(RunSet {
        run,
        baseline,
        savings,
        lost_work,
        effective_text: plan.effective_text().to_string(),
        baseline_text: plan.baseline_text().map(str::to_string),
    })
}
