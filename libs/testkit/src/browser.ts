// Headless Chromium for the browser apps' end-to-end tests, driven by playwright-core (which
// downloads no browser): Debian's chromium-headless-shell, Chromium's headless-only build, which
// spent a quarter less CPU than the full browser (`chromium`) on the same support application
// tests (49 s against 64 s). Installed with apt-get when missing and the machine allows (root,
// apt-get present); where it cannot be, a full Chromium already installed is used; otherwise the
// tests fail with what to install, never skip. TEST_CHROMIUM_PATH names another binary.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
const FULL_BROWSERS = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

/** Whether this process may install Debian packages: root, with apt-get present. */
function mayInstallPackages(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0 && existsSync("/usr/bin/apt-get");
}

/** apt-get install of `packages`, updating the package lists once when that fails (they may be missing or stale on a fresh machine); throws when it still fails. */
function aptInstall(packages: string[]): void {
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () => execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...packages], { stdio: "inherit", env, timeout: 600_000 });
  try {
    install();
  } catch {
    execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env, timeout: 240_000 });
    install();
  }
}

/** The path of a Chromium binary, installing Debian's headless shell first when it is missing and root may. */
export function ensureChromium(): string {
  const chosen = process.env.TEST_CHROMIUM_PATH;
  if (chosen) {
    if (existsSync(chosen)) return chosen;
    throw new Error(`TEST_CHROMIUM_PATH names ${chosen}, which does not exist.`);
  }
  if (existsSync(HEADLESS_SHELL)) return HEADLESS_SHELL;
  let installFailure: string | undefined;
  if (mayInstallPackages()) {
    try {
      aptInstall(["chromium-headless-shell"]);
    } catch (error) {
      installFailure = (error as Error).message;
    }
    if (existsSync(HEADLESS_SHELL)) return HEADLESS_SHELL;
  }
  const full = FULL_BROWSERS.find((path) => existsSync(path));
  if (full) return full;
  if (installFailure !== undefined) throw new Error(`Installing Chromium failed (apt-get install chromium-headless-shell): ${installFailure}`);
  throw new Error(
    "The browser apps' end-to-end tests need Chromium and it is not installed. Install it with " +
      "`apt-get install chromium-headless-shell` (as root), or set TEST_CHROMIUM_PATH to a Chromium or Chrome binary.",
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
  if (!mayInstallPackages()) {
    console.warn(`${missing.join(", ")} missing (apt-get install ${missing.join(" ")} as root): screenshots of Chinese, Japanese, Korean and Thai pages show boxes.`);
    return;
  }
  try {
    aptInstall(missing);
  } catch (error) {
    console.warn(`Installing ${missing.join(", ")} failed (${(error as Error).message}): screenshots of Chinese, Japanese, Korean and Thai pages show boxes.`);
  }
}

export async function launchBrowser(): Promise<Browser> {
  ensureScreenshotFonts();
  return chromium.launch({
    executablePath: ensureChromium(),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
