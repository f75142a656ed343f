"""Thesis Fig. 4.1: parallelepipeds of n = 2 and n = 3 vectors, annotated with their isometry I.

{{ snakemake.config["scale"] | capitalize }} scale; a drawing, no randomness. The parallelogram of n
= 2 vectors (top) and the parallelepiped of n = 3 vectors (bottom) for the examples
{{ snakemake.params.labels | join(", ") }}, each annotated with its isometry I(G) = det(G)^{1/n} /
(tr(G)/n) (Def. 4.1, Eq. (4.2)) of the Gram G (Eq. (4.1)), computed from G's eigenvalues. Higher
volume at fixed scale means higher isometry.
"""

import torch
from mpl_toolkits.mplot3d.art3d import Poly3DCollection

from sigprop.engine import gram_isometry
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
params = item_params(snakemake)
table = gram_isometry.example_table(params.labels, params.parallelograms, params.parallelepipeds)
table.to_csv(snakemake.output.csv, index=False)

k = len(params.labels)
fig, axes = plotting.figure(ncols=k, nrows=2, width=3.0, height=3.0)
for j, label in enumerate(params.labels):
    for n in (2, 3):
        part = table.query("label == @label and n == @n").sort_values("vector")
        x = torch.tensor(part[["x", "y", "z"]].to_numpy().T[:n])
        faces = gram_isometry.parallelepiped_faces(x).numpy()
        title = rf"$n={n}$: $\mathcal{{I}}(G)={part['isometry'].iloc[0]:.3f}$"
        if n == 2:
            ax = axes[0, j]
            ax.fill(*faces[0].T, alpha=0.3, color="C0")
            ax.quiver([0, 0], [0, 0], *x, color="C3", angles="xy", scale_units="xy", scale=1)
            ax.set(aspect="equal", xlim=(-0.1, 2.1), ylim=(-0.1, 1.3), title=f"{label}\n{title}")
            continue
        axes[1, j].remove()
        ax = fig.add_subplot(2, k, k + j + 1, projection="3d")
        ax.add_collection3d(Poly3DCollection(faces, alpha=0.15, facecolor="C0", edgecolor="k"))
        ax.quiver([0] * 3, [0] * 3, [0] * 3, *x, color="C3")
        ax.set(xlim=(0, 3), ylim=(0, 2), zlim=(0, 2), title=title)
        ax.set(xticklabels=[], yticklabels=[], zticklabels=[])
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
