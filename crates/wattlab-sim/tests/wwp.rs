//! `wwp-bulk` end to end: a WWP transfer over VDROP/VDELAY links delivers every byte in order
//! and closes; its columns; determinism; the TCP Tahoe baseline's counts; located errors.

use wattlab_sim::{BuildOptions, RunOutput, Simulation};

/// One sender and one receiver over a 10 Mb/s link, 1 ms each way, `imp` on both directions.
fn scenario(imp: &str, flow: &str) -> String {
    format!(
        r#"
[simulation]
duration = "300s"
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
delay = "1ms"
a_to_b = {{ {imp} }}
b_to_a = {{ {imp} }}
{flow}
"#
    )
}

fn run(text: &str, seed: u64) -> RunOutput {
    Simulation::from_toml(text, "wwp.toml", Some(seed), &[], &BuildOptions::default()).expect("scenario builds").run().expect("run succeeds")
}

fn flow_json(out: &RunOutput, i: usize) -> serde_json::Value {
    serde_json::to_value(&out.summary.flows[i]).unwrap()
}

const VDROP_10: &str = r#"loss = { model = "every-nth", n = 10 }"#;

#[test]
fn a_lossy_transfer_delivers_every_byte_and_closes() {
    let n = 300 * 1024 + 100;
    let flow = format!("[[flow]]\nkind = \"wwp-bulk\"\nname = \"w\"\nfrom = \"a\"\nto = \"b\"\nbytes = {n}");
    let out = run(&scenario(VDROP_10, &flow), 1);
    let f = flow_json(&out, 0);
    println!("{f:#}");
    let u = |k: &str| f[k].as_u64().unwrap_or_else(|| panic!("{k}: {f}"));
    assert_eq!((f["completed"].as_bool(), f["closed"].as_bool()), (Some(true), Some(true)), "{f}");
    assert_eq!((u("bytes_delivered"), u("original_data_bytes")), (n, n));
    assert!(u("nacked_segments") > 0 && u("retransmitted_segments") > 0, "{f}");
}
