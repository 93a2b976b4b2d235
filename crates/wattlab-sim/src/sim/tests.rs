//! The simulation end to end, where the test needs to act between events or read a layer's
//! state: external power control driven by hand, and the applications' hints to an agent.

use super::*;
use crate::build::BuildOptions;
use crate::stack::ConnHints;
use wattlab_core::energy::RadioState;

fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

/// Seed 000's emulation end to end: CBR to the client, the agent puts the station to sleep
    /// from 0.5 s to 1.5 s; the client pings at 1.0 s while asleep.
    #[test]
    fn external_mode_in_the_simulator_drops_arrivals_and_meters_sleep() {
        let text = r#"
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
radio = { profile = "wavelan-dsss" }
[[link]]
a = "server"
b = "ap"
rate = "100Mbps"
delay = "15ms"
[[wireless]]
name = "hop"
ap = "ap"
station = "client"
rate = "20Mbps"
power_save = "external"
[[flow]]
kind = "udp-cbr"
from = "server"
to = "client"
rate = "800kbps"
packet_size = "1000B"
duration = "2s"
[[flow]]
kind = "ping"
from = "client"
to = "server"
count = 1
start = "1s"
"#;
        let mut sim = Simulation::from_toml(text, "ext.toml", Some(1), &[], &BuildOptions::default()).unwrap();
        sim.start_run();
        assert!(sim.run_until(ms(500)));
        sim.set_station_awake(ms(500), 0, false);
        assert!(sim.run_until(ms(1500)));
        assert_eq!(sim.hop_power_stats(0, ms(1500)).doze_ns, 1_000_000_000);
        sim.set_station_awake(ms(1500), 0, true);
        let horizon = sim.horizon;
        sim.run_until(horizon);
        let out = crate::output::collect(sim).unwrap().summary;

        let (cbr, ping) = (serde_json::to_value(&out.flows[0]).unwrap(), serde_json::to_value(&out.flows[1]).unwrap());
        let w = &out.wireless[0];
        assert_eq!((w.power_save.as_str(), w.stats.dozes, w.stats.doze_ns), ("external", 1, 1_000_000_000));
        // Datagrams every 10 ms reach the client 15.5 ms after leaving: those sent from
        // 0.4845 s to 1.4845 s arrive asleep, and so does the ping's reply (at ~1.03 s).
        assert_eq!(cbr["datagrams_sent"], 200);
        assert_eq!(w.stats.dropped_asleep, 100 + 1, "{w:?}");
        assert_eq!(cbr["datagrams_received"], 100);
        assert_eq!((&cbr["datagrams_lost"], &cbr["completed"]), (&100.into(), &false.into()), "a stream that lost datagrams is not completed");
        assert_eq!((&ping["datagrams_sent"], &ping["datagrams_received"]), (&1.into(), &0.into()), "the request went out, the reply was lost");
        let down = out.links.iter().find(|l| l.name == "hop:ap->client").unwrap();
        assert_eq!(down.stats.packets_sent, 201, "the AP never holds");
        assert_eq!(down.stats.packets_delivered, 100);
        assert_eq!(out.drops.no_socket + out.drops.unroutable, 0);

        let report = |p: &str| out.radios.iter().find(|r| r.policy == p).unwrap().report.clone();
        let (cc, on) = (report("external"), report("always-on"));
        // Asleep for 1 s minus the wake-up carved before 1.5 s and the ping's transmission
        // (sleep → tx → sleep, its wake-up carved too): 2 ms each at idle power.
        let frame = |bytes: u64| bytes * 8 * 1_000_000_000 / 20_000_000;
        let ping_tx = frame(84);
        assert_eq!(cc.time_in(RadioState::Sleep).as_nanos(), 1_000_000_000 - 2 * 2_000_000 - ping_tx);
        assert_eq!(cc.transitions.count, 4);
        assert_eq!(cc.tx.time_ns, ping_tx);
        // Frames dropped asleep cost the radio nothing, under any policy.
        assert_eq!(cc.rx.time_ns, 100 * frame(1028));
        assert_eq!(on.rx.time_ns, cc.rx.time_ns);
        assert!(cc.total_energy_fj < on.total_energy_fj);
    }

    /// The same by hand on a `[[wlan]]` station: its PM bit has the AP hold what arrives
    /// while it sleeps (nothing lost), and the driver's wake-up releases it.
    #[test]
    fn external_mode_on_a_wlan_station_holds_arrivals_and_meters_sleep() {
        let text = r#"
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
radio = { profile = "wavelan-dsss" }
[[link]]
a = "server"
b = "ap"
rate = "100Mbps"
delay = "15ms"
[[wlan]]
ap = "ap"
stations = ["client"]
phy = "80211b"
rate = "11Mbps"
power_save = "external"
[[flow]]
kind = "udp-cbr"
from = "server"
to = "client"
rate = "800kbps"
packet_size = "1000B"
duration = "2s"
"#;
        // The same run always awake: every datagram (the run waits for the last one).
        let cam = Simulation::from_toml(&text.replace("\"external\"", "\"cam\""), "ext.toml", Some(1), &[], &BuildOptions::default()).unwrap().run().unwrap().summary;
        let mut sim = Simulation::from_toml(text, "ext.toml", Some(1), &[], &BuildOptions::default()).unwrap();
        let iface = sim.wlans[0].sta_iface[1];
        sim.start_run();
        assert!(sim.run_until(ms(500)));
        sim.set_iface_awake(ms(500), iface, false);
        assert!(sim.run_until(ms(1500)));
        assert!(!sim.wlans[0].bss.is_awake(1));
        let held = sim.wlans[0].bss.stas[0].queue.len();
        assert!((90..=100).contains(&held), "the AP holds a second of datagrams: {held}");
        sim.set_iface_awake(ms(1500), iface, true);
        let horizon = sim.horizon;
        sim.run_until(horizon);
        let out = crate::output::collect(sim).unwrap().summary;
        let cbr = serde_json::to_value(&out.flows[0]).unwrap();
        assert_eq!(cbr["datagrams_sent"], 200);
        let cam_cbr = serde_json::to_value(&cam.flows[0]).unwrap();
        assert_eq!((&cam_cbr["datagrams_received"], &cam_cbr["completed"]), (&200.into(), &true.into()));
        assert_eq!(cbr["datagrams_received"], 200, "nothing lost asleep: {:?}", out.wlans[0].stations[0].stats);
        assert_eq!((&cbr["datagrams_lost"], &cbr["completed"]), (&0.into(), &true.into()));
        let sta = &out.wlans[0].stations[1];
        assert_eq!((sta.power_save.as_str(), sta.stats.dozes), ("external", 1));
        assert!((999_000_000..=1_000_000_000).contains(&sta.stats.doze_ns), "{}", sta.stats.doze_ns);
        let r = out.radios.iter().find(|r| r.policy == "external").unwrap();
        assert!(r.report.sleep.time_ns > 990_000_000, "{:?}", r.report.sleep);
    }

    #[test]
    fn the_agent_hook_sees_every_request_and_response_size() {
        let text = r#"
[[node]]
name = "s"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
[[link]]
a = "s"
b = "ap"
rate = "100Mbps"
delay = "10ms"
[[wireless]]
ap = "ap"
station = "client"
rate = "20Mbps"
[[flow]]
kind = "web"
client = "client"
servers = ["s"]
pages = 3
max_connections = 3
request = "400B"
"#;
        let mut sim = Simulation::from_toml(text, "t.toml", Some(3), &[], &Default::default()).unwrap();
        sim.run_loop();
        // Client sockets have the browser's ephemeral ports; the servers' listen on port 80.
        let hints: Vec<(u32, bool, ConnHints)> = sim
            .stack
            .sockets
            .iter()
            .enumerate()
            .map(|(i, s)| (i as u32, matches!(&s.socket, crate::stack::Socket::Tcp(c) if c.local().port != 80), s.hints))
            .collect();
        let out = crate::output::collect(sim).unwrap();
        let objects = &out.objects;
        assert_eq!(out.pages.end_s.iter().filter(|e| !e.is_nan()).count(), 3);
        let clients: Vec<&(u32, bool, ConnHints)> = hints.iter().filter(|h| h.1).collect();
        for &&(c, _, h) in &clients {
            let rows: Vec<usize> = (0..objects.flow.len()).filter(|&i| objects.connection[i] == Some(c)).collect();
            let Some(&last) = rows.last() else {
                // Opened for an object that another connection took first: never used.
                assert_eq!(h, ConnHints::default());
                continue;
            };
            assert_eq!(h.requests as usize, rows.len());
            let secs = |t: Option<Time>| t.map(|t| t.as_secs_f64());
            assert_eq!((secs(h.request_at), h.request_bytes), (Some(objects.request_s[last]), 400));
            assert_eq!(
                (secs(h.response_at), h.response_bytes),
                (Some(objects.first_byte_s[last]), objects.size[last] + crate::apps::web::DEFAULT_RESPONSE_HEADER)
            );
        }
        assert!(clients.iter().any(|h| h.2.requests > 1), "no connection carried two requests");
        // The server ends' hints stay empty: only the client application reports.
        let servers: Vec<&(u32, bool, ConnHints)> = hints.iter().filter(|h| !h.1).collect();
        assert_eq!(servers.len(), clients.len());
        assert!(servers.iter().all(|h| h.2 == ConnHints::default()));
    }

    /// A datagram to a port where no socket listens is counted as a drop, as TCP's are.
    #[test]
    fn a_datagram_for_no_socket_is_counted() {
        let text = "[[node]]\nname = \"a\"\nkind = \"host\"\n[[node]]\nname = \"b\"\nkind = \"host\"\n\
                    [[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
                    [[flow]]\nkind = \"ping\"\nfrom = \"a\"\nto = \"b\"\ncount = 1\n";
        let mut sim = Simulation::from_toml(text, "stray.toml", Some(1), &[], &BuildOptions::default()).unwrap();
        sim.start_run();
        let (a, b) = (sim.net.addr(0), sim.net.addr(1));
        let header = wattlab_core::packet::UdpHeader { src_port: 5000, dst_port: 5001 };
        sim.send_from(0, wattlab_core::Packet::udp(a, b, header, 100));
        let horizon = sim.horizon;
        sim.run_until(horizon);
        let out = crate::output::collect(sim).unwrap().summary;
        assert_eq!(out.drops.no_socket, 1, "{:?}", out.drops);
    }
