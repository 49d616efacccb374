"""List prices the cost model uses (USD), as dated constants with their source. Check them before quoting a bill.

Consulted 2026-11-24 (stored copies of the pages named; prices change, and
vary by region and currency: the pages are the authority).
"""

from dataclasses import dataclass

CONSULTED = "2026-11-24"

# Cloud Run, Tier 1 regions (europe-west1, the scripts' default region, and us-central1 among them):
# https://cloud.google.com/run/pricing
RUN_SOURCE = "https://cloud.google.com/run/pricing (Tier 1)"
# Request-based billing ("CPU only allocated during request processing", the deployment's default):
# an instance is billed while it handles at least one request, rounded up to 100 ms.
REQUEST_VCPU_S = 0.000024
REQUEST_GIB_S = 0.0000025
PER_MILLION_REQUESTS = 0.40
BILLING_GRANULARITY_S = 0.1
# Free each month per billing account, request-based billing.
FREE_VCPU_S = 180_000
FREE_GIB_S = 360_000
FREE_REQUESTS = 2_000_000
# Instance-based billing ("CPU always allocated"): the whole life of an instance, no request fee.
INSTANCE_VCPU_S = 0.000018
# The page's instance-based memory rate is not in the stored copy consulted; the request-based one
# is used instead, an upper bound.
INSTANCE_GIB_S = 0.0000025

# Firestore, Standard edition: per 100,000 documents read, written, deleted, by the database's location
# (`python -m bench cost --firestore-location`). The scripts create the database in REGION (infra/lib.sh,
# FIRESTORE_LOCATION); only the locations below could be read offline, and the default is the highest of them.
@dataclass(frozen=True)
class FirestorePrices:
    read_per_100k: float
    write_per_100k: float
    delete_per_100k: float
    source: str


FIRESTORE_LOCATIONS = {
    # consulted 2026-11-24: the multi-region row (nam5, eur3), the highest
    "multi-region": FirestorePrices(0.06, 0.18, 0.02, "https://cloud.google.com/firestore/pricing "
                                    "(Standard edition, multi-region)"),
    # read 2026-12-04 in a stored copy of the per-location table: its Oregon row, half the multi-region one
    "us-west1": FirestorePrices(0.03, 0.09, 0.01, "https://firebase.google.com/docs/firestore/pricing "
                                "(Standard edition, Oregon: us-west1; read 2026-12-04)"),
}
FIRESTORE_DEFAULT = "multi-region"
# Free each day, (default) database only.
FREE_READS_PER_DAY = 50_000
FREE_WRITES_PER_DAY = 20_000

SECONDS_PER_MONTH = 30 * 24 * 3600
