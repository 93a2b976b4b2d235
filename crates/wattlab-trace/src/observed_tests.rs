//! Unit tests of the observed policy's inference, driven PPDU by PPDU.

use super::*;
use wattlab_core::energy::builtin_profile;
use wattlab_core::energy::RadioState;

const AP: [u8; 6] = [2, 0, 0, 0, 0, 1];
const STA: [u8; 6] = [2, 0, 0, 0, 0, 3];
const MS: u64 = 1_000_000;

/// Radiotap fields of a 6 Mb/s PPDU on 5 GHz (802.11a).
fn rt6() -> Radiotap {
    Radiotap { rate_500k: Some(12), channel: Some((5180, 0x0140)), ..Default::default() }
}

/// A data frame (200 bytes) from `from` to `to` at `start_ns`, with these Frame Control flags.
fn data(start_ns: u64, from: [u8; 6], to: [u8; 6], flags: u16) -> Ppdu {
    let mac = MacHeader {
        fc: (2 << 2) | (flags << 8),
        duration: 0,
        addr1: to,
        addr2: Some(from),
        addr3: Some(AP),
        addr4: None,
        seq_ctrl: Some(0),
        qos: None,
        ht_control: None,
        len: 24,
    };
    Ppdu { ts: Time(start_ns), rt: rt6(), reference: None, mpdus: vec![Mpdu { mac, len: 200, tim_has_aid: None }] }
}

/// A data frame from the AP to the station (From DS), More Data as given.
fn downlink(start_ns: u64, more_data: bool) -> Ppdu {
    data(start_ns, AP, STA, 0x02 | if more_data { 0x20 } else { 0 })
}

/// An ACK to `to` starting SIFS after `after` ends.
fn ack(after: &Ppdu, to: [u8; 6]) -> Ppdu {
    let end = after.ts + PHY_80211A.ppdu_duration(200, TxVector::Legacy { kbps: 6_000 }) + PHY_80211A.sifs;
    let mac = MacHeader {
        fc: (13 << 4) | (1 << 2),
        duration: 0,
        addr1: to,
        addr2: None,
        addr3: None,
        addr4: None,
        seq_ctrl: None,
        qos: None,
        ht_control: None,
        len: 10,
    };
    Ppdu { ts: end, rt: rt6(), reference: None, mpdus: vec![Mpdu { mac, len: ACK_BYTES, tim_has_aid: None }] }
}

/// A station in an individual TWT agreement (SPs of 4 ms every 100 ms from 0) receives a
/// frame with More Data 0.1 ms before its SP's end, and the rest only in the next SP: the
/// wait for More Data ends with the SP, so it dozes once that frame's exchange (its ACK) is
/// over instead of staying awake until the next SP (the +21.7 % the round trip once showed).
#[test]
fn a_more_data_wait_ends_with_the_service_period() {
    let profile = builtin_profile("wavelan-dsss").unwrap();
    let params = ObservedParams { listen_beacons: false, stamp: Stamp::Start, ..Default::default() };
    let mut inf = Inference {
        c: STA,
        params,
        fallback: None,
        meter: None,
        profile: &profile,
        out: ObservedOutcome::default(),
        ap: Some(AP),
        aid: None,
        uapsd: false,
        ps: true,
        awake: true,
        wait: Wait::Nothing,
        pending: None,
        last: None,
        end: Time::ZERO,
        timeline: true,
        twt: Some(TwtAgreement { next: Time::ZERO, interval: Duration::from_millis(100), duration: Duration::from_millis(4), open_until: None }),
        tsf_offset: None,
        twt_accepted: None,
    };
    let phy = PHY_80211A;
    let ack_end = |p: &Ppdu| ack(p, AP).ts + phy.frame_duration(ACK_BYTES, 6_000);
    let first = downlink(MS, false);
    let late = downlink(4 * MS - 100_000, true);
    // Its own uplink (To DS, PM = 1) after the SP: it wakes to send, then dozes once its
    // exchange is over (a wait for More Data left open would keep it awake until SP 1).
    let own = data(10 * MS, STA, AP, 0x01 | 0x10);
    let next = downlink(100 * MS + 50_000, false);
    let ppdus = [ack(&first, AP), ack(&late, AP), ack(&own, STA)];
    for p in [&first, &ppdus[0], &late, &ppdus[1], &own, &ppdus[2], &next] {
        inf.ppdu(p).unwrap();
    }
    if let Some(o) = inf.last.take() {
        inf.owed_response(o);
    }
    let end = Time(150 * MS);
    inf.advance_twt(end).unwrap();
    if let Some(at) = inf.pending {
        inf.doze(at);
    }
    // The late frame's exchange (its PPDU, SIFS, the station's ACK) runs past the SP's end.
    let late_end = ack_end(&late);
    assert!(late_end > Time(4 * MS));
    let own_end = ppdus[2].ts + phy.frame_duration(ACK_BYTES, 6_000);
    let mut m = inf.meter.take().unwrap();
    let mut rows = Vec::new();
    m.meter.drain_timeline(|t, s| rows.push((t, s)));
    rows.extend_from_slice(m.meter.timeline());
    let state_at = |t: Time| rows.iter().rev().find(|r| r.0 <= t).map(|r| r.1);
    // Asleep from the late exchange's end to its own send, from that exchange's end to SP 1
    // (100 ms), awake through SP 1, asleep after.
    let us = Duration::from_micros(1);
    for (t, asleep) in [
        (late_end - us, false),
        (late_end + us, true),
        (Time(10 * MS) - us, true),
        (own_end - us, false),
        (own_end + us, true),
        (Time(100 * MS) - us, true),
        (Time(100 * MS), false),
        (Time(104 * MS) - us, false),
        (Time(104 * MS) + us, true),
    ] {
        assert_eq!(state_at(t) == Some(RadioState::Sleep), asleep, "at {t:?}: {rows:?}");
    }
    assert_eq!((inf.out.service_periods, inf.out.dozes, inf.out.responses_inferred, inf.out.tx_responses), (2, 3, 1, 2));
}
