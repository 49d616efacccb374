"""Headless Chromium driven by Selenium: the question page's browser tests and its screenshot.

The browser and its driver are Debian's ``chromium`` and ``chromium-driver``
(``.ci/run`` installs them). Their paths are given to Selenium explicitly, so
that Selenium Manager never tries to download a browser of its own.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager

BROWSER = "chromium"
DRIVER = "chromedriver"


def missing() -> str:
    """Why no browser can run here ("" when one can): the programs that are not on PATH."""
    absent = [name for name in (BROWSER, DRIVER) if shutil.which(name) is None]
    if not absent:
        return ""
    return (f"{' and '.join(absent)} not on PATH: install Debian's chromium and chromium-driver "
            "(apt-get install -y chromium chromium-driver; .ci/run does)")


@contextmanager
def chromium(width: int = 1000, height: int = 900) -> Iterator:
    """A headless Chromium session (a Selenium ``WebDriver``) whose console messages can be read back."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    why = missing()
    if why:
        raise RuntimeError(why)
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which(BROWSER)
    # --no-sandbox: CI and this sandbox run as root, where Chromium's own sandbox cannot start.
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--disable-extensions", f"--window-size={width},{height}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=shutil.which(DRIVER)))
    try:
        yield driver
    finally:
        driver.quit()


def ask(driver, page_url: str, question: str, context: str | None = None, fields: dict[str, object] | None = None,
        timeout_s: float = 60.0) -> None:
    """Load the page, type the question (and paste ``context``, if given) as a person would, fill in the
    ``fields`` (a field's id: its value, e.g. ``{"top_k": 2}``; a folded section is opened first),
    press Ask, and wait until the page shows the reply or an error."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(page_url)
    driver.find_element(By.ID, "question").send_keys(question)
    if context is not None:
        driver.find_element(By.CSS_SELECTOR, "input[name=mode][value=context]").click()
        driver.find_element(By.ID, "context").send_keys(context)
    for name, value in (fields or {}).items():
        field = driver.find_element(By.ID, name)
        for section in field.find_elements(By.XPATH, "ancestor::details[not(@open)]"):
            section.find_element(By.TAG_NAME, "summary").click()
        field.clear()
        field.send_keys(str(value))
    driver.find_element(By.ID, "submit").click()
    WebDriverWait(driver, timeout_s).until(
        lambda d: d.find_element(By.ID, "result").is_displayed()
        or "error" in (d.find_element(By.ID, "status").get_attribute("class") or ""))
