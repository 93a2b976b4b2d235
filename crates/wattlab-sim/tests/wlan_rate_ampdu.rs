//! Issue 29, items 3 and 5: rate control on the aggregating MAC (one rate per A-MPDU, feedback
//! per PPDU) and the per-station rate columns (`rate_mbps_mean`, `mcs_mode`, ...).

use wattlab_sim::output::WlanStationSummary;
use wattlab_sim::{BuildOptions, Simulation};

/// An 802.11ax BSS (20 MHz, 1 SS) with clients at `distances` (m) uploading saturated TCP for
/// `secs`, rates chosen by `rate` (`rate = "..."`, or `mcs = N` for a constant).
fn scenario(distances: &[f64], rate: &str, secs: u32) -> String {
    let mut s = format!(
        "[simulation]\nduration = \"{secs}s\"\n[[node]]\nname = \"server\"\nkind = \"host\"\n\
         [[node]]\nname = \"ap\"\nkind = \"ap\"\nposition = [0, 0]\n\
         [[link]]\na = \"server\"\nb = \"ap\"\nrate = \"1Gbps\"\ndelay = \"5ms\"\n"
    );
    for (i, d) in distances.iter().enumerate() {
        s += &format!("[[node]]\nname = \"c{i}\"\nkind = \"host\"\nposition = [{d}, 0]\n");
    }
    let list: Vec<String> = (0..distances.len()).map(|i| format!("\"c{i}\"")).collect();
    s += &format!("[[wlan]]\nap = \"ap\"\nstations = [{}]\nphy = \"80211ax\"\nwidth = 20\n{rate}\n[wlan.propagation]\n", list.join(", "));
    for i in 0..distances.len() {
        s += &format!("[[flow]]\nname = \"f{i}\"\nkind = \"bulk-upload\"\nclient = \"c{i}\"\nserver = \"server\"\nbytes = \"10GB\"\nport = {}\n", 5001 + i);
    }
    s
}

/// Delivered bytes per flow and the station rows of the BSS (AP first).
fn run(text: &str) -> (Vec<u64>, Vec<WlanStationSummary>) {
    let sim = Simulation::from_toml(text, "ax.toml", Some(1), &[], &BuildOptions::default())
        .expect("scenario builds");
    let out = sim.run().expect("run");
    (
        out.summary
            .flows
            .iter()
            .map(|f| f.bytes_delivered)
            .collect(),
        out.summary.wlans[0].stations.clone(),
    )
}

#[test]
fn a_constant_mcs_sends_every_mpdu_at_that_mcs() {
    let (_, rows) = run(&scenario(&[5.0], "mcs = 7", 1));
    let sta = &rows[1];
    assert!(sta.rate_mpdus > 1000, "{}", sta.rate_mpdus);
    // HE-MCS 7, 1 SS, 20 MHz, 0.8 us GI: 1170 bits per 13.6 us symbol = 86.029 Mb/s
    // (802.11ax-2021 Table 27-55 rounds it to 86.0); the TCP ACKs the AP sends down go at the
    // same MCS.
    let r = 86.029;
    assert_eq!((sta.mcs_mode, sta.rate_mode_mbps), (7, r));
    assert_eq!(
        (sta.rate_mbps_mean, sta.rate_up_mbps, sta.rate_down_mbps),
        (r, r, r)
    );
    let ap = &rows[0];
    assert_eq!(
        (ap.mcs_mode, ap.rate_mbps_mean, ap.rate_up_mbps),
        (7, r, 0.0)
    );
}

#[test]
fn minstrel_near_and_far_use_different_mcs_and_come_close_to_the_ideal_choice() {
    // 5 m: SNR 42.4 dB, HE-MCS 11 works; 60 m: SNR 9.9 dB, a low MCS.
    let secs = 5;
    let (ideal, irows) = run(&scenario(&[5.0, 60.0], "rate = \"ideal\"", secs));
    let (minstrel, mrows) = run(&scenario(&[5.0, 60.0], "rate = \"minstrel-ht\"", secs));
    eprintln!("ideal {ideal:?} minstrel {minstrel:?}");
    for (r, m) in irows.iter().zip(&mrows).skip(1) {
        eprintln!(
            "{}: ideal mcs {} {:.1} Mb/s up {:.1}; minstrel mcs {} mean {:.1} up {:.1} down {:.1}, ba_lost {} frame_errors {} ampdu_mean {:.1}",
            r.node, r.mcs_mode, r.rate_mbps_mean, r.rate_up_mbps, m.mcs_mode, m.rate_mbps_mean, m.rate_up_mbps, m.rate_down_mbps, m.stats.ba_lost, m.stats.frame_errors, m.ampdu_mean
        );
    }
    let (near, far) = (&mrows[1], &mrows[2]);
    assert_eq!(irows[1].mcs_mode, 11);
    assert!(
        irows[2].mcs_mode <= 3,
        "ideal far MCS {}",
        irows[2].mcs_mode
    );
    // Minstrel-HT's most used MCS is the ideal one, or its neighbour, for each station.
    assert!(
        (near.mcs_mode - irows[1].mcs_mode).abs() <= 1,
        "near {}",
        near.mcs_mode
    );
    assert!(
        (far.mcs_mode - irows[2].mcs_mode).abs() <= 1,
        "far {}",
        far.mcs_mode
    );
    assert!(near.mcs_mode > far.mcs_mode + 5);
    // Its goodput is within 20 % of the ideal choice's, per flow and in total (the price of
    // sampling and of learning each link's rates).
    for i in 0..2 {
        assert!(
            minstrel[i] as f64 > 0.8 * ideal[i] as f64,
            "flow {i}: minstrel {} ideal {}",
            minstrel[i],
            ideal[i]
        );
    }
}
