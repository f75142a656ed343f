"""What a run concludes and shows: claims evaluated from measured intervals, their
verdicts and the claims ledger (``claims``), what a failing paper claim means (``findings``,
from ``papers/<family>/findings.yaml``), one figure style for every family (``plotting``).

May import: ``base``, ``engine``, ``datasets``, ``nets``, ``training``."""
