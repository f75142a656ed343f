"""Add the claims of finished claims files to a paper-scale ledger, keeping its rows and columns.

    python ledgers/add_claims.py ledgers/paper_cpu.csv results/claims/<family>/<item>.json ...

The new rows are ``sigprop.verdicts.claims.ledger`` over the given files (requirements applied
across them) in the ledger's own columns, inserted by id; the rows already there are kept byte for
byte, and an id already in the ledger stops the script (rerun an item's judge, then replace its
rows by hand, rather than add it twice).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from sigprop.verdicts.claims import ledger


def add_claims(ledger_path: str | Path, claims_files: list[str]) -> dict[str, int]:
    """Insert the claims of ``claims_files`` into the CSV at ``ledger_path``; verdict counts."""
    path = Path(ledger_path)
    header, *rows = path.read_text().splitlines()
    table = ledger(claims_files)[header.split(",")]
    clash = sorted({r.split(",", 1)[0] for r in rows} & set(table["id"]))
    if clash:
        raise SystemExit(f"already in {path}: {clash}")
    text = io.StringIO()
    table.to_csv(text, index=False, header=False)
    merged = sorted(rows + text.getvalue().splitlines(), key=lambda r: r.split(",", 1)[0])
    path.write_text("\n".join([header, *merged]) + "\n")
    return table["verdict"].value_counts().to_dict()


if __name__ == "__main__":
    print(add_claims(sys.argv[1], sys.argv[2:]))
