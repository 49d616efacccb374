"""What a question costs: measured billable units (instance seconds, Firestore operations) times list prices.

Pure arithmetic over ``bench.prices``; ``bench.cost`` measures the inputs.
Two ways an instance's time is billed under request-based billing bracket a
real deployment:

- *alone*: every request finds the instance idle and is billed on its own,
  its server time rounded up to 100 ms (light, scattered traffic);
- *busy*: requests keep an instance busy (up to the deployed concurrency) and
  share its billed time: seconds of the run / requests answered in it.

Marginal prices: the monthly free tiers are left out (``bench.prices`` lists them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bench import prices


@dataclass(frozen=True)
class Units:
    """Billable units of one question, on average."""

    instance_s: float  # instance seconds billed (at the deployed vCPUs and memory)
    reads: float
    writes: float

    def mixed(self, other: Units, share_of_other: float) -> Units:
        """The average of a mix: ``share_of_other`` of ``other``, the rest of this."""
        a, b = 1 - share_of_other, share_of_other
        return Units(a * self.instance_s + b * other.instance_s, a * self.reads + b * other.reads,
                     a * self.writes + b * other.writes)


def billed_alone_s(server_ms: float) -> float:
    """Instance seconds billed for a request alone on an instance: its time rounded up to 100 ms."""
    step = prices.BILLING_GRANULARITY_S
    return math.ceil(round(server_ms / 1000 / step, 9)) * step


def billed_busy_s(seconds: float, requests: int) -> float:
    """Instance seconds per request while requests kept the instance busy for ``seconds``."""
    if requests <= 0:
        raise ValueError("no requests were answered")
    return seconds / requests


def per_million(units: Units, vcpus: float, memory_gib: float,
                firestore: prices.FirestorePrices = prices.FIRESTORE_LOCATIONS[prices.FIRESTORE_DEFAULT]) -> dict:
    """Dollars per million questions, by line, request-based billing; Firestore at ``firestore``'s list prices
    (the database's location: ``prices.FIRESTORE_LOCATIONS``)."""
    n = 1e6
    lines = {
        "cpu": units.instance_s * vcpus * prices.REQUEST_VCPU_S * n,
        "memory": units.instance_s * memory_gib * prices.REQUEST_GIB_S * n,
        "requests": prices.PER_MILLION_REQUESTS,
        "firestore": (units.reads * firestore.read_per_100k + units.writes * firestore.write_per_100k) / 1e5 * n,
    }
    lines["total"] = sum(lines.values())
    return {k: round(v, 4) for k, v in lines.items()}


def always_on_per_month(vcpus: float, memory_gib: float) -> float:
    """One instance kept all month under instance-based billing (minimum instances 1), whatever it serves."""
    return round(prices.SECONDS_PER_MONTH * (vcpus * prices.INSTANCE_VCPU_S + memory_gib * prices.INSTANCE_GIB_S), 2)


def per_cold_start(startup_s: float, vcpus: float, memory_gib: float) -> float:
    """Dollars for one cold start's start-up seconds, billed at the instance's (boosted) size."""
    return startup_s * (vcpus * prices.REQUEST_VCPU_S + memory_gib * prices.REQUEST_GIB_S)
