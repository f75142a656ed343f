"""The generic rules of every paper item, driven by the registry (sigprop.papers.<family>.items).

simulate -> results/<family>/<sim>.safetensors (or, for the simulations config split_simulations
names, simulate_part per value of the split key -> results/<family>/parts/<part>.safetensors, then
merge -> the same file); draw -> figures/<family>/<fig>.{pdf,png} and the plotted
numbers; tabulate -> results/<family>/<table>.{csv,md}; measure -> a theorem's measured table;
judge -> results/claims/<family>/<item>.json. Which item a job is comes from its wildcards.
Each job's params hold the fingerprint of its code (sigprop.pipeline.fingerprint), so a code change reruns
what that code made; its script itself is tracked by Snakemake.
"""


wildcard_constraints:
    family="|".join(REGISTRY.families) or "(?!)",


# On a cluster only the compute jobs are submitted; the sub-second jobs, the compute jobs
# projected under a minute (simulate_tiny, simulate_part_tiny, measure_tiny) and the data rule (a
# compute node may be offline) run in the main process's machine.
localrules:
    all,
    draw,
    tabulate,
    judge,
    merge,
    prepare_data,
    claims_ledger,
    simulate_tiny,
    simulate_part_tiny,
    measure_tiny,


rule simulate:
    """A cached simulation of a registry Simulation item (tensors + provenance sidecar)."""
    input:
        get_datasets,
    output:
        tensor="results/{family}/{item}.safetensors",
        meta="results/{family}/{item}.json",
    log:
        "logs/{family}/simulate_{item}.log",
    benchmark:
        "benchmarks/{family}/simulate_{item}.tsv"
    wildcard_constraints:
        item=tiny_names("simulation", tiny=False),
    priority: previous_run_seconds("simulate")
    retries: get_retries("simulation")
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=get_placement("simulation", "mem_mb"),
        runtime=get_placement("simulation", "runtime"),
        gpu=get_placement("simulation", "gpus"),
    params:
        function=get_simulation_function,
        setup=get_setup,
        device=get_placement("simulation", "device"),
        code=get_simulation_code,
    script:
        "../scripts/simulate.py"


use rule simulate as simulate_tiny with:
    wildcard_constraints:
        item=tiny_names("simulation"),


rule simulate_part:
    """One part of a split simulation (config split_simulations): its function on one value of
    its split key (registry ``Split``), placed at the part's share of the item's cost."""
    input:
        get_part_datasets,
    output:
        tensor="results/{family}/parts/{part}.safetensors",
        meta="results/{family}/parts/{part}.json",
    log:
        "logs/{family}/simulate_{part}.log",
    benchmark:
        "benchmarks/{family}/simulate_{part}.tsv"
    wildcard_constraints:
        part=part_names(tiny=False),
    priority: previous_part_seconds
    retries: get_retries("simulation")
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=get_part_placement("mem_mb"),
        runtime=get_part_placement("runtime"),
        gpu=get_part_placement("gpus"),
    params:
        function=get_part_function,
        setup=get_part_setup,
        device=get_part_placement("device"),
        code=get_part_code,
    script:
        "../scripts/simulate.py"


use rule simulate_part as simulate_part_tiny with:
    wildcard_constraints:
        part=part_names(),


rule merge:
    """A split simulation's tensors from its parts, joined along its split dim: the file and
    sidecar the simulate rule writes, so every reader is unchanged."""
    input:
        parts=get_parts,
    output:
        tensor="results/{family}/{item}.safetensors",
        meta="results/{family}/{item}.json",
    log:
        "logs/{family}/merge_{item}.log",
    benchmark:
        "benchmarks/{family}/merge_{item}.tsv"
    wildcard_constraints:
        item=split_names(),
    conda:
        "../../envs/sigprop.yaml"
    params:
        setup=get_setup,
        split=get_split,
        code=get_merge_code,
    script:
        "../scripts/merge.py"


rule draw:
    """A registry Figure item: its script plots cached tensors and saves the plotted numbers."""
    input:
        unpack(get_reads),
    output:
        pdf="figures/{family}/{item}.pdf",
        png=report(
            "figures/{family}/{item}.png",
            caption="../report/item.rst",
            category="{family}",
        ),
        csv="results/{family}/{item}.csv",
    log:
        "logs/{family}/draw_{item}.log",
    benchmark:
        "benchmarks/{family}/draw_{item}.tsv"
    wildcard_constraints:
        item="|".join(REGISTRY.names("figure")) or "(?!)",
    conda:
        "../../envs/sigprop.yaml"
    params:
        item=get_script_params,
        source=get_source,
        script=get_script,
        code=get_script_code,
    script:
        "{params.script}"


rule tabulate:
    """A registry Table item: its script writes the table as CSV and Markdown."""
    input:
        unpack(get_reads),
    output:
        csv=report(
            "results/{family}/{item}.csv",
            caption="../report/item.rst",
            category="{family}",
        ),
        md="results/{family}/{item}.md",
    log:
        "logs/{family}/tabulate_{item}.log",
    benchmark:
        "benchmarks/{family}/tabulate_{item}.tsv"
    wildcard_constraints:
        item="|".join(REGISTRY.names("table")) or "(?!)",
    conda:
        "../../envs/sigprop.yaml"
    params:
        item=get_script_params,
        source=get_source,
        script=get_script,
        code=get_script_code,
    script:
        "{params.script}"


rule measure:
    """A registry Theorem item's measurement: the table of measured numbers, one row per case."""
    output:
        table=report(
            "results/{family}/{item}.csv",
            caption="../report/theorem.rst",
            category="{family}",
            subcategory="theorem checks",
        ),
        meta="results/{family}/{item}.json",
    log:
        "logs/{family}/measure_{item}.log",
    benchmark:
        "benchmarks/{family}/measure_{item}.tsv"
    wildcard_constraints:
        item=tiny_names("theorem", tiny=False),
    priority: previous_run_seconds("measure")
    retries: get_retries("theorem")
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=get_placement("theorem", "mem_mb"),
        runtime=get_placement("theorem", "runtime"),
        gpu=get_placement("theorem", "gpus"),
    params:
        function=get_measure_function,
        setup=get_measure_setup,
        device=get_placement("theorem", "device"),
        code=get_measure_code,
    script:
        "../scripts/measure.py"


use rule measure as measure_tiny with:
    wildcard_constraints:
        item=tiny_names("theorem"),


rule judge:
    """The claims of a figure, table or theorem item, from its CSV; the caption with verdicts."""
    input:
        table="results/{family}/{item}.csv",
    output:
        claims="results/claims/{family}/{item}.json",
        caption="results/captions/{family}/{item}.rst",
        page=report(
            "results/captions/{family}/{item}.html",
            caption="../report/verdicts.rst",
            category="{family}",
            subcategory="descriptions and verdicts",
        ),
    log:
        "logs/{family}/judge_{item}.log",
    benchmark:
        "benchmarks/{family}/judge_{item}.tsv"
    wildcard_constraints:
        item="|".join(
            REGISTRY.names("figure") + REGISTRY.names("table") + REGISTRY.names("theorem")
        )
        or "(?!)",
    conda:
        "../../envs/sigprop.yaml"
    params:
        function=get_judge_function,
        arguments=get_judge_args,
        description=get_description,
        figure=get_judged_figure,
        scale=get_item_scale,
        confidence=config["claims"]["confidence"],
        code=get_judge_code,
    script:
        "../scripts/judge.py"


rule prepare_data:
    """A dataset's files under data.root, from the first way that works (sigprop.datasets.data.prepare):
    already there, a local copy, its Debian package, torchvision's download."""
    output:
        marker=f"{config['data']['root']}/.prepared/{{dataset}}.json",
    log:
        "logs/data/prepare_{dataset}.log",
    benchmark:
        "benchmarks/data/prepare_{dataset}.tsv"
    wildcard_constraints:
        dataset="|".join(DATASETS) or "(?!)",
    priority: 100
    conda:
        "../../envs/sigprop.yaml"
    params:
        data=config["data"],
    script:
        "../scripts/prepare_data.py"
