"""Debian's headless Chromium driven by Selenium, for ``tests/web`` and ``bench/web.py``.

:func:`chromium` starts one browser (``/usr/bin/chromium`` through
``/usr/bin/chromedriver``, a fresh profile folder, no network beyond what
the page asks for); :func:`console_errors` reads its console;
:func:`not_blank` checks that a screenshot shows something (pixel
variance, with Pillow). Needs the ``selenium`` and ``pillow`` packages (the test extra) and the
``chromium`` and ``chromium-driver`` packages (``scripts/ensure-tools.sh``).
"""

from __future__ import annotations

import io
import shutil
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["CHROMEDRIVER", "CHROMIUM", "chromium", "console_errors", "not_blank", "png_stats"]

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage",
         "--disable-extensions", "--mute-audio")


def chromium(width: int = 1440, height: int = 900, *, mobile: bool = False,
             profile_root: Path | None = None) -> Any:
    """A new headless Chromium (a Selenium ``webdriver.Chrome``) with a window of
    ``width``×``height`` CSS pixels (``mobile``: touch, device scale 3, a phone's
    user agent — the viewport is then exactly that size). The caller quits it;
    its profile folder is removed when it quits.

    :raises FileNotFoundError: Chromium or chromedriver is not installed.
    """
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    for tool in (CHROMIUM, CHROMEDRIVER):
        if not Path(tool).exists():
            raise FileNotFoundError(f"{tool} missing: apt-get install chromium chromium-driver")
    profile = Path(tempfile.mkdtemp(prefix="chromium-", dir=profile_root))
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    if mobile:
        options.add_experimental_option("mobileEmulation", {
            "deviceMetrics": {"width": width, "height": height, "pixelRatio": 3.0, "touch": True},
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 "
                         "(KHTML, like Gecko) Chrome/156.0 Mobile Safari/537.36"})
    else:
        options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    if not mobile:  # --window-size is the outer window: make the viewport exact
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    quit_ = driver.quit

    def quit_and_clean() -> None:
        try:
            quit_()
        finally:
            shutil.rmtree(profile, ignore_errors=True)

    driver.quit = quit_and_clean
    return driver


def console_errors(driver: Any) -> list[str]:
    """The console's errors (level SEVERE) since the last call."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def png_stats(data: bytes) -> tuple[int, int, float]:
    """Width, height and the variance of the grey level (0–255²) of a PNG."""
    from PIL import Image, ImageStat

    with Image.open(io.BytesIO(data)) as image:
        grey = image.convert("L")
        return image.width, image.height, float(ImageStat.Stat(grey).var[0])


def not_blank(data: bytes, min_variance: float = 50.0) -> bool:
    """Whether a PNG screenshot shows more than one flat colour."""
    return png_stats(data)[2] >= min_variance
