"""A real headless Chromium for the web tests (Debian's chromium and chromium-driver, via Selenium;
nothing is downloaded: Selenium Manager is never asked)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WIDTH, HEIGHT = 1920, 1080


def chromium() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={WIDTH},{HEIGHT}", "--hide-scrollbars", "--force-device-scale-factor=1",
                     "--disable-extensions", "--no-first-run", "--mute-audio"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(20)
    # OBS's canvas: exactly 1920×1080 CSS pixels at scale 1, whatever the window decorations.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    return driver


def wait_until(driver: Any, condition: Callable[[Any], Any], timeout: float = 10.0, message: str = "") -> Any:
    """Selenium's own polling wait (a condition with a timeout, no fixed sleep)."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(condition, message)


def transparent_screenshot(driver: Any) -> Any:
    """The page as an RGBA image (numpy), the page's own background transparent as OBS draws it."""
    import cv2
    import numpy as np

    driver.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride",
                           {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False})
    data = np.frombuffer(base64.b64decode(shot["data"]), np.uint8)
    return cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
