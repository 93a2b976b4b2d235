//! `udp-cbr`'s delivery statistics against cases computed by hand: a lossless link of constant
//! delay (every one-way delay = propagation + serialization, jitter 0), a Bernoulli loss link
//! (the loss ratio within a binomial interval), and when a stream completes.

use wattlab_sim::{BuildOptions, Simulation};

/// Two hosts over one 10 Mb/s link, 5 ms each way; `extra` goes into the link table.
fn scenario(extra: &str, flow: &str) -> String {
    format!(
        r#"
[simulation]
duration = "60s"
[[node]]
name = "a"
kind = "host"
[[node]]
name = "b"
kind = "host"
[[link]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "5ms"
{extra}
[[flow]]
kind = "udp-cbr"
name = "s"
from = "a"
to = "b"
{flow}
"#
    )
}

fn flow(text: &str, seed: u64) -> serde_json::Value {
    let sim = Simulation::from_toml(text, "cbr.toml", Some(seed), &[], &BuildOptions::default()).expect("builds");
    serde_json::to_value(&sim.run().expect("runs").summary.flows[0]).unwrap()
}

#[test]
fn a_lossless_constant_delay_link_gives_exact_delays_and_no_jitter() {
    // 1000 B datagrams at 1 Mb/s: one every 8 ms for 2 s = 250, none queued behind another.
    let f = flow(&scenario("", "rate = \"1Mbps\"\npacket_size = \"1000B\"\nduration = \"2s\""), 1);
    let n = |k: &str| f[k].as_u64().unwrap_or_else(|| panic!("{k}: {f}"));
    assert_eq!((n("datagrams_sent"), n("datagrams_received"), n("datagrams_lost")), (250, 250, 0), "{f}");
    assert_eq!((f["loss_ratio"].as_f64(), n("datagrams_out_of_order")), (Some(0.0), 0));
    // Delay = 5 ms propagation + (1000 + 8 + 20) B × 8 / 10 Mb/s = 822.4 µs serialization.
    let delay = 5.0 + 0.8224;
    for k in ["delay_mean_ms", "delay_min_ms", "delay_p50_ms", "delay_p99_ms", "delay_max_ms"] {
        let v = f[k].as_f64().unwrap();
        assert!((v - delay).abs() < 1e-9, "{k} = {v}, want {delay}");
    }
    assert_eq!((f["jitter_ms"].as_f64(), f["ipdv_mean_ms"].as_f64()), (Some(0.0), Some(0.0)));
    // Completed at the last datagram's arrival: sent at 249 × 8 ms, then one delay.
    assert_eq!(f["completed"], true);
    let done = f["completion_time_s"].as_f64().unwrap();
    assert!((done - (0.249 * 8.0 + delay / 1e3)).abs() < 1e-9, "{done}");
}

#[test]
fn a_bernoulli_loss_link_loses_its_share_and_the_stream_does_not_complete() {
    // p = 0.1 over 2,500 datagrams: σ = √(n p (1 − p)) = 15; 99.9 % interval ± 3.29 σ.
    let p = 0.1;
    let extra = format!("a_to_b = {{ loss = {{ model = \"bernoulli\", p = {p} }} }}");
    let f = flow(&scenario(&extra, "rate = \"1Mbps\"\npacket_size = \"1000B\"\nduration = \"20s\""), 3);
    let (sent, lost) = (f["datagrams_sent"].as_u64().unwrap(), f["datagrams_lost"].as_u64().unwrap());
    assert_eq!(sent, 2500);
    assert_eq!(lost + f["datagrams_received"].as_u64().unwrap(), sent);
    let sigma = (sent as f64 * p * (1.0 - p)).sqrt();
    assert!((lost as f64 - sent as f64 * p).abs() <= 3.29 * sigma, "lost {lost} of {sent}");
    assert!((f["loss_ratio"].as_f64().unwrap() - lost as f64 / sent as f64).abs() < 1e-12);
    // The delivered ones still took exactly the link's delay.
    assert!((f["delay_p99_ms"].as_f64().unwrap() - 5.8224).abs() < 1e-9, "{f}");
    // Datagrams are missing: the stream is given up 2 s after its last one, not completed.
    assert_eq!((&f["completed"], &f["completion_time_s"]), (&false.into(), &serde_json::Value::Null), "{f}");
}

#[test]
fn queueing_delay_shows_in_percentiles_and_jitter() {
    // 1000 B at 20 Mb/s into a 10 Mb/s link for 0.1 s: the queue grows by one datagram per
    // 0.8224 ms served, so the i-th waits i × (0.8224 − 0.4) ms more than the first.
    let f = flow(&scenario("queue = { packets = 1000 }", "rate = \"20Mbps\"\npacket_size = \"1000B\"\nduration = \"0.1s\""), 1);
    assert_eq!((f["datagrams_sent"].as_u64(), f["datagrams_lost"].as_u64()), (Some(250), Some(0)), "{f}");
    let step = 0.8224 - 0.4;
    let min = f["delay_min_ms"].as_f64().unwrap();
    let max = f["delay_max_ms"].as_f64().unwrap();
    assert!((min - 5.8224).abs() < 1e-9 && (max - (5.8224 + 249.0 * step)).abs() < 1e-6, "{f}");
    // Consecutive delays differ by `step`: FlowMonitor's mean variation is `step` exactly, and
    // RFC 3550's J approaches it as 1 − (15/16)^249.
    assert!((f["ipdv_mean_ms"].as_f64().unwrap() - step).abs() < 1e-6, "{f}");
    let j = step * (1.0 - (15.0f64 / 16.0).powi(249));
    assert!((f["jitter_ms"].as_f64().unwrap() - j).abs() < 1e-6, "{f}");
    // Delays spread evenly from min to max: the median within 0.1 % of the middle one.
    let mid = 5.8224 + 124.0 * step;
    assert!((f["delay_p50_ms"].as_f64().unwrap() - mid).abs() <= mid / 1000.0, "{f}");
}

#[test]
fn datagrams_carry_iperfs_header_and_tiny_sizes_are_refused() {
    let err = Simulation::from_toml(&scenario("", "rate = \"1Mbps\"\npacket_size = \"11B\""), "cbr.toml", None, &[], &BuildOptions::default())
        .err()
        .expect("refused");
    let msg = err.to_string();
    assert!(msg.contains("packet_size") && msg.contains("12..=65507"), "{msg}");
}
