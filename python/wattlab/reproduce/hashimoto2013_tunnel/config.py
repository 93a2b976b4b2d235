"""Parameters of the paper 002 Ch. 4 (SCTP tunnel) reproduction, model side: the thesis's
settings (Sect. 4.4.1, Figs. 4.5–4.8) and the conventions it leaves open, each with its reason
(docs/models.md "sctp_tunnel", docs/reproductions.md "Paper 002 Ch. 4")."""

from __future__ import annotations

from dataclasses import dataclass, field

import click

from wattlab.models import sctp_tunnel as st
from wattlab.models import tcp_energy as te

from ..options import Command, ConfigBase, Option


@dataclass
class Config(ConfigBase):
    """Every knob of the reproduction; ``full()`` and ``quick_preset()`` are the two presets."""

    profile: str = "atheros-ar5004"
    """Device profile of the client's WNI: Table 4.2 (P^t, P^r, P^l, P^s, P^as, P^sa, T^as, T^sa)."""
    kbyte: int = 1024
    """Bytes in the thesis's "kbyte" (not stated): 1024, the thesis's own habit (its Eq. 3.42
    counts 1 Mbps as 1024² b/s); 1000 moves R by 2.4 % (the sensitivity table shows both)."""
    timing: str = "simple"
    """Frame durations (not given): preamble + 8·L/rate, as the Ch. 3 model (docs/models.md)."""
    control_rate_bps: float = 54e6
    """Rate of RTS/CTS/ACK (not given; Table 4.1's 54 Mb/s)."""
    sizing: str = "thesis"
    """SCTP packet sizes: Eq. 4.12 as printed (1532/72 B); "wire" = SCTP over UDP over IPv4."""
    rx_per_burst: str = "m"
    """Packets the client receives per burst of m: m (R^u = R^d, Eq. 4.5: every TCP packet has
    its ACK and the m-th carries the SACK, Fig. 4.2) rather than Ch. 3's one ACK per m."""
    sleep_rule: str = "thesis"
    """Sleep in every gap longer than t^st (the thesis's rule: its Fig. 4.5 shows sleep above CAM)."""
    q_values: list[float] = field(default_factory=lambda: [0.1, 0.2, 0.5])
    """Fig. 4.5's panels (p = q^8: 1.00e-8, 2.56e-6, 3.91e-3)."""
    m_fig45: list[int] = field(default_factory=lambda: [1, 2, 5])
    """Burst sizes of Fig. 4.5."""
    flow_kBps_fig45: float = 150.0
    """Throughput of each upstream flow in Figs. 4.5–4.7 (kB/s); the aggregate is n × this."""
    flow_kBps_fig48: float = 50.0
    """Throughput of each flow in Fig. 4.8 (kB/s)."""
    q_fig46: float = 0.1
    """q of Figs. 4.6–4.8."""
    m_fig46: list[int] = field(default_factory=lambda: list(range(1, 21)))
    """m axis of Figs. 4.6–4.7 (the thesis's range is not legible; 1–20 shows the convergence)."""
    n_flows_fig46: list[int] = field(default_factory=lambda: [1, 2, 3, 4, 5, 6])
    """Aggregates of Figs. 4.6–4.7, in flows of ``flow_kBps_fig45`` (150 … 900 kB/s)."""
    m_sim_fig46: list[int] = field(default_factory=lambda: [1, 2, 3, 5, 8, 10, 15, 20])
    """Burst sizes the simulator runs for Figs. 4.6–4.8 with ``simulate`` (a subset of ``m_fig46``)."""
    n_flows_sim_fig46: list[int] = field(default_factory=lambda: [1, 3, 6])
    """Aggregates the simulator runs for Figs. 4.6–4.8, in flows of ``flow_kBps_fig45`` (a subset of
    ``n_flows_fig46``: 150, 450 and 900 kB/s)."""
    d_th_ms: list[float] = field(default_factory=lambda: [0.0, 1.0, 3.0, 5.0, 10.0])
    """Delay bounds of Fig. 4.8 (the text quotes 0, 3 and 10 ms)."""
    m_max_fig48: int = 64
    """Largest m searched for Fig. 4.8 (10 ms at 50 kB/s allows m = 1 + 2·R·D_th = 1.7)."""
    stay_awake_fig48: bool = True
    """Fig. 4.8 lets the client keep its radio on (P_ratio 0) when every allowed m sleeps at a
    loss: the thesis's D_th = 0 curve "decreases linearly and finally reaches zero"."""
    line_step_kBps: float = 5.0
    """Spacing of the model's lines under the flow-count points in Figs. 4.5 and 4.8."""
    sim_points_csv: str | None = None
    """The simulator side's results (one row per run, ``simulator.SIM_COLUMNS``), or None: not run yet."""
    simulate: bool = False
    """Run the simulated tunnel over Fig. 4.5's grid and Figs. 4.6–4.8's simulated points on the
    study engine (``simulator.run_grid``); on in the full preset (84 + 24 runs, ~2.5 s on 2 cores,
    docs/benchmarks.md), off in the quick one."""
    association: bool = False
    """With ``simulate`` (ignored without it): rerun the simulated points pre-established (no INIT handshake) and with
    Max.Burst = 4 (issue 32's experiment, ``association.py``, ``sim_association.csv``); on in the
    full preset (2 × (84 + 24) runs more)."""
    sim_duration_s: float = 20.0
    """Simulated time of each simulator run (the flows start within 10·n ms; the whole run is measured)."""
    sim_seeds: int = 1
    """Simulator runs per grid point (seeds ``sim_base_seed`` …); the point's value is their mean."""
    sim_base_seed: int = 1
    """First seed of the simulator runs."""
    quick: bool = False
    """The reduced preset of the test suite."""

    @classmethod
    def full(cls) -> "Config":
        """The thesis's figures with fine model lines, and the simulator over Fig. 4.5's grid."""
        return cls(simulate=True, association=True)

    @classmethod
    def quick_preset(cls) -> "Config":
        """The same figures with coarser lines and m up to 10: a second or two; the simulator off
        (5 s runs when turned on)."""
        return cls(m_fig46=list(range(1, 11)), line_step_kBps=25.0, d_th_ms=[0.0, 3.0, 10.0], sim_duration_s=5.0,
                   m_sim_fig46=[1, 2, 5, 10], n_flows_sim_fig46=[1, 3],
                   quick=True)

    def tunnel(self) -> st.Tunnel:
        """The model's parameters: Table 4.1 (MAC), the profile's Table 4.2 and the conventions."""
        mac = te.Mac80211a(timing=self.timing, control_rate_bps=self.control_rate_bps)
        return st.Tunnel(mac=mac, wni=te.Wni.from_profile(self.profile), sizing=self.sizing,
                         rx_per_burst=self.rx_per_burst, sleep_rule=self.sleep_rule)

    def check(self) -> None:
        """Raise ValueError naming the first invalid setting."""
        if self.kbyte not in (1000, 1024):
            raise ValueError("kbyte must be 1000 or 1024")
        if not self.q_values or any(not 0.0 <= q < 1.0 for q in self.q_values):
            raise ValueError("q values must be in [0, 1)")
        if not 0.0 <= self.q_fig46 < 1.0:
            raise ValueError("q_fig46 must be in [0, 1)")
        for name in ("m_fig45", "m_fig46"):
            ms = getattr(self, name)
            if not ms or any(int(m) != m or m < 1 for m in ms):
                raise ValueError(f"{name} must be positive integers")
        if 1 not in self.m_fig45 or 5 not in self.m_fig45:
            raise ValueError("m_fig45 must contain 1 and 5 (the thesis's key numbers)")
        if self.flow_kBps_fig45 <= 0 or self.flow_kBps_fig48 <= 0 or self.line_step_kBps <= 0:
            raise ValueError("throughputs and the line step must be positive")
        if not self.n_flows_fig46 or any(n < 1 for n in self.n_flows_fig46):
            raise ValueError("n_flows_fig46 must be positive")
        if not set(self.m_sim_fig46) <= set(self.m_fig46) or not set(self.n_flows_sim_fig46) <= set(self.n_flows_fig46):
            raise ValueError("m_sim_fig46 and n_flows_sim_fig46 must be subsets of m_fig46 and n_flows_fig46 "
                             "(the simulator runs points of the model's Figs. 4.6–4.7)")
        if 0.0 not in self.d_th_ms or any(d < 0 for d in self.d_th_ms):
            raise ValueError("d_th_ms must be ≥ 0 and contain 0 (the baseline of Fig. 4.8's gains)")
        if self.m_max_fig48 < 1:
            raise ValueError("m_max_fig48 must be ≥ 1")
        if self.simulate and self.sim_points_csv:
            raise ValueError("simulate and sim_points_csv (--simulate, --sim-points) exclude each other: "
                             "give the simulator's rows or run it, not both")
        if not 0.0 < self.sim_duration_s <= 3600.0:
            raise ValueError("sim_duration_s must be in (0, 3600] s")
        if not 1 <= self.sim_seeds <= 100 or self.sim_base_seed < 0:
            raise ValueError("sim_seeds must be 1–100 and sim_base_seed ≥ 0")
        try:
            self.tunnel().check()
        except ValueError as e:
            raise ValueError(f"model convention: {e}") from None

COMMAND = Command(
    help="Paper 002 chapter 4 (Hashimoto 2013, SCTP tunneling): Figs. 4.5–4.8 from the power model "
    "(wattlab.models.sctp_tunnel) and, beside Fig. 4.5, the simulated tunnel (wattlab.reproduce.hashimoto2013_tunnel."
    "simulator); the thesis's key numbers beside ours (27 % and ~69 % at 450 kB/s), the sensitivity to the conventions "
    "the thesis leaves open and claim verdicts.",
    quick="Coarser model lines and m up to 10, no simulator unless --simulate (then 5 s runs): a few seconds. Used by the "
    "test suite.",
    seed="First seed of the simulator runs.",
    seed_field="sim_base_seed",
    options=(
        Option(("--simulate/--no-simulate",), "simulate", "Run the simulated tunnel over Fig. 4.5's 84 grid points and 24 "
               "points of Figs. 4.6–4.8 (q = 0.1; 20 s each; ~2.5 s more wall time on 2 cores) and put it beside the model; "
               "claim S1 is judged from these runs. Default: on, off with --quick."),
        Option(("--association/--no-association",), "association", "With the simulator: rerun its points with the "
               "SCTP association pre-established instead of started by the INIT handshake, and with Max.Burst = 4, and "
               "say how each moves the simulated tunnel and claim S1 (sim_association.csv). Default: on, off with --quick."),
        Option(("--sim-seeds",), "sim_seeds", "Simulator runs per grid point (default 1).", type=click.IntRange(1, 100),
               metavar="N"),
        Option(("--sim-points",), None, "The simulator side's results, one row per run (q, m, aggregate_kBps, p_cam_w, "
               "p_sleep_w), to put beside the model instead of running it (implies --no-simulate).",
               type=click.Path(dir_okay=False), metavar="CSV"),
    ),
    written="summary.md has the thesis's numbers beside ours",
)
"""``wattlab reproduce hashimoto2013-tunnel``."""
