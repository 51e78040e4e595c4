"""A beancount file as beancount's own loader reads it, one JSON object a line
(docs/guide/ledger-exchange.md "Import"): its errors, opens, transactions,
balances and prices, each with the line it starts on. Numbers are written as
decimal mantissa and places, never as floats. Run by shared/books/ledger-import.ts
with the python of the beancount venv (scripts/python-tools.ts)."""
import json
import sys

from beancount import loader
from beancount.core import data


def amount(number, currency):
    sign, digits, exponent = number.as_tuple()
    mantissa = int("".join(map(str, digits)) or "0")
    if exponent > 0:
        mantissa *= 10**exponent
        exponent = 0
    return {"currency": currency, "mantissa": str(-mantissa if sign else mantissa), "places": -exponent}


def meta(values):
    return {
        k: str(v)
        for k, v in (values or {}).items()
        if k not in ("filename", "lineno") and not k.startswith("__")
    }


def line(values, default=0):
    return (values or {}).get("lineno", default)


def main(path):
    out = sys.stdout
    entries, errors, _ = loader.load_file(path)
    for e in errors:
        source = e.source or {}
        out.write(json.dumps({"t": "error", "line": source.get("lineno", 0), "message": str(e.message)}) + "\n")
    for e in entries:
        at = line(e.meta)
        if isinstance(e, data.Open):
            out.write(json.dumps({"t": "open", "line": at, "name": e.account, "meta": meta(e.meta)}) + "\n")
        elif isinstance(e, data.Transaction):
            postings = []
            for p in e.postings:
                postings.append(
                    {
                        "account": p.account,
                        "line": line(p.meta, at),
                        "amount": amount(p.units.number, p.units.currency),
                        "cost": p.cost is not None,
                        "price": p.price is not None,
                        "meta": meta(p.meta),
                    }
                )
            record = {
                "t": "txn",
                "line": at,
                "date": e.date.isoformat(),
                "payee": e.payee or "",
                "narration": e.narration or "",
                "meta": meta(e.meta),
                "postings": postings,
            }
            out.write(json.dumps(record) + "\n")
        elif isinstance(e, data.Balance):
            record = {
                "t": "balance",
                "line": at,
                "date": e.date.isoformat(),
                "account": e.account,
                "amount": amount(e.amount.number, e.amount.currency),
            }
            out.write(json.dumps(record) + "\n")
        elif isinstance(e, data.Price):
            out.write(json.dumps({"t": "price", "line": at}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
