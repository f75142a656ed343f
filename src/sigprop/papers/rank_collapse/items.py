"""Dan+20 items: every simulation, figure and theorem check of the rank-collapse paper."""

from ...checks import rank_collapse as judges
from ...experiments import rank_collapse as simulations
from ...registry import Figure, Simulation

SEED = "Dan+20 (seeds 000-002)"

ITEMS = [
    Simulation(
        "depth_rank",
        seed="Dan+20 Fig. 2",
        run=simulations.depth_rank,
    ),
    Figure(
        "fig2",
        seed="Dan+20 Fig. 2",
        reads={"ranks": "depth_rank"},
        params={"setup": "rank_collapse/depth_rank"},
        judge=judges.fig2_claims,
        judge_args={
            "width": "rank_collapse/depth_rank/width",
            "vanilla_rank_tolerance": "rank_collapse/fig2/vanilla_rank_tolerance",
        },
    ),
]
