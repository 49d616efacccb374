"""List prices the cost model uses (USD), as dated constants with their source. Check them before quoting a bill.

Consulted 2026-11-24 (stored copies of the pages named; prices change, and
vary by region and currency: the pages are the authority).
"""

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

# Firestore, Standard edition: https://cloud.google.com/firestore/pricing
FIRESTORE_SOURCE = "https://cloud.google.com/firestore/pricing (Standard edition, multi-region)"
# Per 100,000 documents, the multi-region row (nam5, eur3): the highest; regional locations (the
# scripts create the database in REGION) list lower prices.
READ_PER_100K = 0.06
WRITE_PER_100K = 0.18
DELETE_PER_100K = 0.02
# Free each day, (default) database only.
FREE_READS_PER_DAY = 50_000
FREE_WRITES_PER_DAY = 20_000

SECONDS_PER_MONTH = 30 * 24 * 3600
