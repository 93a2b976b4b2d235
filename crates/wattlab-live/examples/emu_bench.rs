//! Throughput of the emulator's path model: N packets (default 1 M) through the four channels
//! of `yan-cc-download`'s path, data down and one ACK up per two, offered at the hop's rate.
//! `cargo run --release -p wattlab-live --example emu_bench -- [N]`

use std::path::PathBuf;
use std::time::Instant;

use wattlab_core::{Duration, Time};
use wattlab_live::emu::model::{Direction, PathEmulator};
use wattlab_live::plan::{self, LivePolicy};

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/yan-cc-download.toml");
    for policy in [LivePolicy::AlwaysOn, LivePolicy::Psm] {
        let spec = plan::load(&path, policy, &[]).expect("scenario");
        let mut emu: PathEmulator<u64> = PathEmulator::new(plan::path_params(&spec), Time::ZERO);
        let gap = Duration::from_micros(620); // just below the hop's 600 µs per 1500 B frame + ACKs
        let started = Instant::now();
        let (mut now, mut delivered) = (Time::ZERO, 0u64);
        for k in 0..n {
            now += gap;
            emu.offer(now, Direction::Down, 1500, k);
            if k % 2 == 1 {
                emu.offer(now, Direction::Up, 52, k);
            }
            while emu.poll_output().is_some() {
                delivered += 1;
            }
            while emu.poll_radio().is_some() {}
        }
        emu.handle_timeout(now + Duration::from_secs(10));
        while emu.poll_output().is_some() {
            delivered += 1;
        }
        let wall = started.elapsed().as_secs_f64();
        let offered = n + n / 2;
        println!(
            "{:>9}: {offered} packets offered, {delivered} decided, {wall:.3} s wall, {:.2} M packets/s",
            policy.to_string(),
            offered as f64 / wall / 1e6
        );
    }
}
