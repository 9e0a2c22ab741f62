// Headless Chromium for the browser apps' end-to-end tests: Debian's chromium driven by playwright-core
// (which downloads no browser). Installed with apt-get when missing and the machine allows
// (root, apt-get present); otherwise the tests fail with what to install, never skip.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

const CANDIDATES = [process.env.TEST_CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter((path): path is string => Boolean(path));

function findChromium(): string | undefined {
  return CANDIDATES.find((path) => existsSync(path));
}

/** The path of a Chromium binary, installing Debian's package first when it is missing and root may. */
export function ensureChromium(): string {
  const found = findChromium();
  if (found) return found;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const hasApt = existsSync("/usr/bin/apt-get");
  if (isRoot && hasApt) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    try {
      execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env, timeout: 240_000 });
      execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "chromium"], { stdio: "inherit", env, timeout: 600_000 });
    } catch (error) {
      throw new Error(`Installing Chromium failed (apt-get install chromium): ${(error as Error).message}`);
    }
    const installed = findChromium();
    if (installed) return installed;
  }
  throw new Error(
    "The browser apps' end-to-end tests need Chromium and it is not installed. Install it with " +
      "`apt-get install chromium` (as root), or set TEST_CHROMIUM_PATH to a Chromium or Chrome binary.",
  );
}

/**
 * Fonts the screenshots need to show every language the pages speak: Debian's default fonts
 * cover Latin, Greek, Cyrillic and Arabic, not Chinese, Japanese, Korean or Thai (shown as empty
 * boxes without these). Each package by a file it installs.
 */
const SCREENSHOT_FONTS = [
  { name: "fonts-noto-cjk", file: "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc" },
  { name: "fonts-thai-tlwg", file: "/usr/share/fonts/truetype/tlwg/Garuda.ttf" },
];
let fontsChecked = false;

/**
 * Installs the screenshot fonts that are missing when root may (apt-get); otherwise warns once:
 * the tests read the pages' text, so only the screenshots of those languages suffer.
 */
export function ensureScreenshotFonts(): void {
  if (fontsChecked) return;
  fontsChecked = true;
  const missing = SCREENSHOT_FONTS.filter((font) => !existsSync(font.file)).map((font) => font.name);
  if (missing.length === 0) return;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (isRoot && existsSync("/usr/bin/apt-get")) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    try {
      execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], { stdio: "inherit", env, timeout: 600_000 });
      return;
    } catch {
      try {
        execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env, timeout: 240_000 });
        execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], { stdio: "inherit", env, timeout: 600_000 });
        return;
      } catch (error) {
        console.warn(`Installing ${missing.join(", ")} failed (${(error as Error).message}): screenshots of Chinese, Japanese, Korean and Thai pages show boxes.`);
        return;
      }
    }
  }
  console.warn(`${missing.join(", ")} missing (apt-get install ${missing.join(" ")} as root): screenshots of Chinese, Japanese, Korean and Thai pages show boxes.`);
}

export async function launchBrowser(): Promise<Browser> {
  ensureScreenshotFonts();
  return chromium.launch({
    executablePath: ensureChromium(),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
