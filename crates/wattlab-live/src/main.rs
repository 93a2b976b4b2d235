//! `wattlab-live`: the processes of a live run, each started inside one network namespace by
//! `wattlab live run` (see `docs/live.md`).

fn main() {
    eprintln!("wattlab-live: started by `wattlab live run`; see docs/live.md");
    std::process::exit(2);
}
