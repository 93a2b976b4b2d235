//! The registry's own checks: names round-trip and are refused with the list, every mode has
//! a configuration that names it back, the parameters' ranges hold.

use super::*;


/// A regular expression of [`PowerMode::regex`]'s small dialect (literals, one group of
/// alternatives, `[1-9][0-9]{0,n}` classes, a literal suffix after the group), matched the
/// slow way, so the pattern sent to Python is checked against the parser here.
fn regex_matches(re: &str, s: &str) -> bool {
    if re.starts_with("twt:") {
        return twt_regex_matches(s);
    }
    let Some(open) = re.find('(') else { return re == s };
    let close = re.rfind(')').expect("a group is closed");
    let (prefix, rest, suffix) = (&re[..open], &re[open + 1..close], &re[close + 1..]);
    let Some(tail) = s.strip_prefix(prefix).and_then(|t| t.strip_suffix(suffix)) else { return false };
    rest.split('|').any(|alt| match alt.split_once('[') {
        None => alt == tail,
        Some((lit, class)) => {
            // `[1-9][0-9]{0,n}`: one non-zero digit then up to n digits.
            let n: usize = class.rsplit_once(',').and_then(|(_, n)| n.trim_end_matches('}').parse().ok()).expect("{0,n}");
            let Some(body) = tail.strip_prefix(lit) else { return false };
            let b = body.as_bytes();
            !b.is_empty() && b.len() <= n + 1 && (b'1'..=b'9').contains(&b[0]) && b[1..].iter().all(u8::is_ascii_digit)
        }
    })
}

/// TWT's regex, by hand: `twt:interval=` 1–5 digits `ms,duration=` 1–6 digits `us`, no
/// leading zero, then optionally `,offset=` 1–8 digits `us`, `,trigger=true`, `,announced=true`,
/// `,broadcast=` 1–31.
fn twt_regex_matches(s: &str) -> bool {
    let digits = |d: &str, max: usize| !d.is_empty() && d.len() <= max && !d.starts_with('0') && d.bytes().all(|b| b.is_ascii_digit());
    let Some(rest) = s.strip_prefix("twt:interval=") else { return false };
    let Some((i, rest)) = rest.split_once("ms,duration=") else { return false };
    let Some((d, rest)) = rest.split_once("us") else { return false };
    let rest = match rest.strip_prefix(",offset=").map(|r| r.split_once("us")) {
        None => rest,
        Some(Some((o, r))) if digits(o, 8) => r,
        Some(_) => return false,
    };
    let rest = rest.strip_prefix(",trigger=true").unwrap_or(rest);
    let rest = rest.strip_prefix(",announced=true").unwrap_or(rest);
    // `([1-9]|[12][0-9]|3[01])`: 1 to 31 without a leading zero.
    let id_ok = |id: &str| digits(id, 2) && id.parse::<u8>().is_ok_and(|n| (1..=31).contains(&n));
    digits(i, 5) && digits(d, 6) && (rest.is_empty() || rest.strip_prefix(",broadcast=").is_some_and(id_ok))
}

fn every_mode() -> impl Iterator<Item = PowerMode> {
    PowerMode::KINDS
        .into_iter()
        .filter(|m| !matches!(m, PowerMode::Bsd { .. } | PowerMode::AdaptivePsm { .. } | PowerMode::Twt(_)))
        .chain(BSD_PERCENT.map(|percent| PowerMode::Bsd { percent }))
        .chain(ADAPTIVE_TIMEOUT_MS.map(|timeout_ms| PowerMode::AdaptivePsm { timeout_ms }))
        .chain(twt_samples().map(PowerMode::Twt))
}

/// TWT agreements at the edges of their ranges.
fn twt_samples() -> impl Iterator<Item = TwtAgreement> {
    [(1, 1, false), (1, 999, true), (100, 8192, false), (100, 99_999, true), (65_535, TWT_MAX_DURATION_US, false), (262, TWT_MAX_DURATION_US, true)]
        .into_iter()
        .map(|(i, d, a)| TwtAgreement::new(i, d, a).unwrap())
        .chain([TwtAgreement::new(100, 4000, true).unwrap().with_offset(99_999).unwrap(), TwtAgreement::new(65_535, 1, false).unwrap().with_offset(TWT_MAX_OFFSET_US).unwrap(), TwtAgreement::new(100, 4000, true).unwrap().with_trigger(true), TwtAgreement::new(20, 10, false).unwrap().with_offset(5).unwrap().with_trigger(true), TwtAgreement::new(100, 4000, true).unwrap().with_broadcast(1).unwrap(), TwtAgreement::new(100, 4000, false).unwrap().with_offset(7).unwrap().with_trigger(true).with_broadcast(31).unwrap()])
}

#[test]
fn every_mode_name_round_trips() {
    let mut n = 0;
    for m in every_mode() {
        let name = m.to_string();
        assert_eq!(name.parse::<PowerMode>(), Ok(m), "{name}");
        assert!(regex_matches(m.regex(), &name), "{name} vs {}", m.regex());
        n += 1;
    }
    assert_eq!(n, PowerMode::KINDS.len() - 3 + 1000 + 10_000 + twt_samples().count());
}

#[test]
fn non_canonical_and_unknown_names_are_refused_with_the_list() {
    for bad in [
        "", "CAM", "Psm", "bsd", "bsd-", "bsd-0", "bsd-050", "bsd-+5", "bsd- 5", "bsd-1001", "bsd-99999999999",
        "bsd-5x", "uapsd", "u_apsd", " cam", "cam ", "always-on", "oracle", "adaptive-psm", "bsd-P",
        "adaptive-psm:timeout=0ms", "adaptive-psm:timeout=100", "adaptive-psm:timeout=0100ms",
        "adaptive-psm:timeout=10001ms", "adaptive-psm:timeout=0.1s", "adaptive-psm:timeout=100ms,",
        "adaptive-psm: timeout=100ms", "adaptive-psm-100", "adaptive-psm:timeout=Tms", "twt", "twt:interval=100ms,duration=0us",
        "twt:interval=100ms,duration=8192us,announced=false", "twt:interval=00100ms,duration=8192us",
    ] {
        let e = bad.parse::<PowerMode>().unwrap_err();
        assert_eq!(e, ParseNameError::Mode(bad.to_string()));
        for kind in PowerMode::KINDS {
            assert!(e.to_string().contains(kind.pattern()), "{e}");
            assert!(!regex_matches(kind.regex(), bad), "{bad} matches {}", kind.regex());
        }
    }
    assert_eq!(
        "x".parse::<PowerMode>().unwrap_err().to_string(),
        "unknown power-save mode `x` (known: cam, psm, ideal-psm, bsd-P (P = 1..=1000), u-apsd, cc, psna, external, beacon-doze, adaptive-psm:timeout=Tms (T = 1..=10000), twt:interval=Ims,duration=Dus[,offset=Ous][,trigger=true][,announced=true][,broadcast=ID] (I = 1..=65535) (D = 1..=261120) (O = 0..=65534999))"
    );
}

#[test]
fn kinds_say_whether_they_change_the_traffic_and_their_parameters() {
    for m in every_mode() {
        assert_eq!(m.changes_traffic(), m != PowerMode::Cam);
        assert_eq!(m.basis() == Basis::Mode, m.changes_traffic());
        assert_eq!(m.params().len(), m.param_values().len());
        for (p, v) in m.params().iter().zip(m.param_values()) {
            assert!((p.min..=p.max).contains(&v));
        }
    }
}

#[test]
fn every_registry_mode_has_a_configuration_that_names_it_back() {
    let s = PowerSaveSettings { listen_interval: 3, ideal_psm_interval: Duration::from_millis(50), uapsd_trigger_interval: Some(Duration::from_millis(20)), uapsd_max_sp: 4 };
    for m in PowerMode::KINDS {
        let ps = PowerSave::from_mode(m, &s);
        assert_eq!(ps.mode(), m);
        assert_eq!(ps.name(), m.to_string());
        assert_eq!(ps.saves_power(), m != PowerMode::Cam);
    }
    assert_eq!(PowerSave::from_mode(PowerMode::Psm, &s), PowerSave::Psm { listen_interval: 3 });
    assert_eq!(PowerSave::from_mode(PowerMode::Uapsd, &s), PowerSave::Uapsd { trigger_interval: Some(Duration::from_millis(20)), max_sp: 4 });
    assert_eq!(
        PowerSave::from_mode(PowerMode::AdaptivePsm { timeout_ms: 200 }, &s),
        PowerSave::AdaptivePsm { timeout: Duration::from_millis(200), listen_interval: 3 }
    );
}

#[test]
fn only_ideal_psm_wakes_for_free_and_keeps_a_release_clock() {
    let s = PowerSaveSettings::default();
    for m in PowerMode::KINDS {
        let ps = PowerSave::from_mode(m, &s);
        assert_eq!(ps.rules().free_wakeups(), m == PowerMode::IdealPsm, "{m}");
        assert_eq!(ps.release_interval().is_some(), m == PowerMode::IdealPsm, "{m}");
    }
}
