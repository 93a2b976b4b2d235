//! `psna-read` / `psna-send` end to end (seed 001): the mobile's PS-TP socket, the daemon on
//! the AP with a real simulated TCP connection to the fixed host, the client's radio switched
//! off (`power_save = "psna"`); every byte delivered, the radio off most of the time, PSNA's
//! card energy ≥ 95 % below legacy TCP's (a bulk transfer with the card always on) on the same
//! path, a fixed host that stops early fails the mobile clearly, determinism, located errors.

use wattlab_sim::{BuildOptions, RunOutput, Simulation};

/// The paper's topology, scaled: an 802.11 DSSS 2 Mb/s BSS (client ↔ ap) and a slow, lossy,
/// asymmetric ap ↔ server path (`down_loss` server → ap, `up_loss` ap → server).
fn scenario(mode: &str, flow: &str, duration: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
radio = {{ profile = "wavelan-turbo-2mbps", policies = ["always-on"] }}
[[link]]
name = "internet"
a = "server"
b = "ap"
rate = "64kbps"
delay = "200ms"
queue = {{ packets = 20 }}
a_to_b = {{ loss = {{ model = "bernoulli", p = 0.02 }} }}
[[wlan]]
name = "bss"
ap = "ap"
stations = ["client"]
phy = "dsss-2mbps"
rate = "2Mbps"
power_save = "{mode}"
{flow}
"#
    )
}

fn run(text: &str, seed: u64) -> RunOutput {
    Simulation::from_toml(text, "psna.toml", Some(seed), &[], &BuildOptions::default())
        .expect("scenario builds")
        .run()
        .expect("run succeeds")
}

fn flow_json(out: &RunOutput, i: usize) -> serde_json::Value {
    serde_json::to_value(&out.summary.flows[i]).unwrap()
}

/// The card's energy (J) on `client` under meter `policy`.
fn energy(out: &RunOutput, policy: &str) -> f64 {
    let v = serde_json::to_value(&out.summary).unwrap();
    let r = v["radios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["node"] == "client" && r["policy"] == policy)
        .unwrap_or_else(|| panic!("no {policy} radio row: {}", v["radios"]));
    r["energy_j"].as_f64().unwrap_or_else(|| panic!("{r}"))
}

const READ: &str =
    "[[flow]]\nkind = \"psna-read\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"200kB\"\n";

#[test]
fn a_read_delivers_every_byte_with_the_radio_mostly_off() {
    let out = run(&scenario("psna", READ, "3000s"), 1);
    let f = flow_json(&out, 0);
    eprintln!("{f:#}");
    eprintln!(
        "{:#}",
        serde_json::to_value(&out.summary).unwrap()["radios"]
    );
    assert_eq!(f["completed"], true, "{f}");
    assert_eq!(f["bytes_delivered"], 200_000);
}

/// The scaled transfer: 1 MB read over the slow path (down loss 25 %: ≈ 10 kb/s of TCP).
fn slow(mode: &str, flow: &str) -> String {
    scenario(mode, flow, "20000s").replace("rate = \"64kbps\"", "rate = \"24kbps\"").replace("p = 0.02", "p = 0.25")
}

#[test]
fn psna_card_energy_is_at_least_95_percent_below_legacy_tcp_on_the_slow_path() {
    let read = READ.replace("200kB", "1MB");
    let psna = run(&slow("psna", &read), 1);
    let legacy = run(&slow("cam", &read.replace("psna-read", "bulk-download")), 1);
    let (fp, fl) = (flow_json(&psna, 0), flow_json(&legacy, 0));
    assert_eq!((fp["completed"].clone(), fl["completed"].clone()), (true.into(), true.into()), "{fp} {fl}");
    let (e_psna, e_tcp) = (energy(&psna, "psna"), energy(&legacy, "always-on"));
    let reduction = 1.0 - e_psna / e_tcp;
    eprintln!("psna {e_psna:.1} J, legacy {e_tcp:.1} J: {:.2} % less, factor {:.1}; {fp}", 100.0 * reduction, e_tcp / e_psna);
    assert!(reduction >= 0.95, "only {:.1} % less", 100.0 * reduction);
    let on = fp["radio_on_s"].as_f64().unwrap();
    assert!(on < 0.1 * fp["completion_time_s"].as_f64().unwrap(), "radio on {on} s: {fp}");
}

#[test]
fn a_fixed_host_that_stops_early_fails_the_mobile_clearly() {
    let flow = format!("{READ}psna = {{ fh_stop_after = \"50kB\" }}\n");
    let out = run(&scenario("psna", &flow, "3000s"), 1);
    let f = flow_json(&out, 0);
    assert_eq!(f["completed"], false, "{f}");
    let err = f["error"].as_str().unwrap_or_else(|| panic!("{f}"));
    assert!(err.contains("closed") || err.contains("FH"), "{err}");
    assert!(f["failed_s"].as_f64().unwrap() < 3000.0, "{f}");
}

#[test]
fn runs_are_deterministic() {
    let a = flow_json(&run(&scenario("psna", READ, "3000s"), 7), 0);
    let b = flow_json(&run(&scenario("psna", READ, "3000s"), 7), 0);
    assert_eq!(a, b);
}

#[test]
fn a_bad_psna_key_is_located() {
    let text = scenario("psna", &format!("{READ}psna = {{ alpha = 1.5 }}\n"), "3000s");
    let e = Simulation::from_toml(&text, "psna.toml", Some(1), &[], &BuildOptions::default()).err().expect("refused").to_string();
    assert!(e.contains("psna.toml:") && e.contains("psna.alpha") && e.contains("(0, 1)"), "{e}");
}

/// Transfer A at full length (`scenarios/psna-transfer-a.toml`): `cargo test --release -- --ignored`.
#[test]
#[ignore]
fn transfer_a_full_length() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/psna-transfer-a.toml")).unwrap();
    let t0 = std::time::Instant::now();
    let psna = run(&text, 1);
    let legacy = run(&text.replace("psna-send", "bulk-upload").replace("\"psna\"", "\"cam\""), 1);
    let (e_psna, e_tcp) = (energy(&psna, "psna"), energy(&legacy, "always-on"));
    eprintln!("wall {:?}; psna {e_psna:.1} J, legacy {e_tcp:.1} J, factor {:.1}\n{}\n{}", t0.elapsed(), e_tcp / e_psna, flow_json(&psna, 0), flow_json(&legacy, 0));
    assert_eq!(flow_json(&psna, 0)["completed"], true);
    assert!(e_psna < 0.05 * e_tcp);
}
