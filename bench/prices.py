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
# Stored data, per GiB (2^30 bytes) and month, the multi-region row (the highest), metadata and index
# entries included by Firestore's own count; consulted 2026-11-25 (the pricing page's storage section and
# its worked example: "Additional data: $0.18 * 99 GiB"). 1 GiB a day free.
STORAGE_GIB_MONTH = 0.18
# Free each day, (default) database only.
FREE_READS_PER_DAY = 50_000
FREE_WRITES_PER_DAY = 20_000

SECONDS_PER_MONTH = 30 * 24 * 3600

# Cloud Storage, Standard storage class, a regional bucket (infra/setup.sh creates it in REGION,
# europe-west1 by default), consulted 2026-11-25: https://cloud.google.com/storage/pricing (the Belgium
# (europe-west1) row of the data storage table) and https://cloud.google.com/storage/pricing-examples
# (Class A and B operations for Standard storage in a region). Stored copies of both pages.
GCS_CONSULTED = "2026-11-25"
GCS_SOURCE = "https://cloud.google.com/storage/pricing (Standard storage, europe-west1; operations by class)"
GCS_STANDARD_GB_MONTH = 0.020  # per GB (2^30 bytes) and month, europe-west1
# Operations, per 1,000. Class A: object writes (XML API PUT and POST: uploads, multipart uploads and their
# parts, copies) and object listings (GET Bucket listing objects). Class B: object reads (GET Object) and
# metadata (HEAD). DELETE is free. Reads within the bucket's region carry no network charge.
GCS_CLASS_A_PER_1000 = 0.005
GCS_CLASS_B_PER_1000 = 0.0004
GIB = 2**30
