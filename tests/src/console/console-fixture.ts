import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before } from "node:test";
import { type BrowserContext, chromium, type Locator, type Page } from "playwright-core";
import { type FullGateway, SAMPLE_CHANNELS, startFull } from "../full/full-fixture.js";
import { tempDir } from "../harness/gateway-process.js";
import { CHROMIUM_ARGS } from "../harness/hlsjs-page.js";
import { requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD } from "../harness/users.js";

export const CHROMIUM = "/usr/bin/chromium";

/** Debian's chromium, headless, offline, with a temp profile (the flags). */
export async function launchChromium(): Promise<BrowserContext> {
  return chromium.launchPersistentContext(tempDir("svc-chromium-"), {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, "--disable-quic"],
    viewport: { width: 1280, height: 900 },
  });
}

/** What a page reported that a console must never produce. */
export interface PageProblems {
  /** console.error lines and uncaught exceptions. */
  errors: string[];
  /** `securitypolicyviolation` events: `directive blocked-uri`. */
  csp: string[];
}

/**
 * Watches a page for console errors, uncaught exceptions and CSP violations.
 * The violation listener is added by the browser before any page script runs
 * (an init script is not subject to the page's CSP).
 */
export async function watchPage(page: Page): Promise<PageProblems> {
  const problems: PageProblems = { errors: [], csp: [] };
  await page.exposeFunction("__svcCsp", (s: string) => problems.csp.push(s));
  // Browser-side code as a string: this package compiles without the DOM library.
  await page.addInitScript(`document.addEventListener("securitypolicyviolation", (e) =>
    window.__svcCsp(e.violatedDirective + " " + e.blockedURI));`);
  page.on("console", (m) => {
    if (m.type() === "error") problems.errors.push(m.text());
  });
  page.on("pageerror", (e) => problems.errors.push(`uncaught: ${e.message}`));
  return problems;
}

/** Signs in through the login form. */
export async function signIn(
  page: Page,
  base: string,
  username = "admin",
  password = ADMIN_PASSWORD,
) {
  await page.goto(`${base}/admin/`);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

const axeSource = readFileSync(
  join(createRequire(import.meta.url).resolve("axe-core"), "..", "axe.min.js"),
  "utf8",
);

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
}

/** axe-core (WCAG 2 A/AA rules) on the current page; returns serious and critical violations. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(axeSource);
  const result = (await page.evaluate(`(async () => {
    const r = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
  })()`)) as AxeViolation[];
  return result.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** True when the page scrolls sideways at its current width. */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return (await page.evaluate(
    "document.documentElement.scrollWidth > document.documentElement.clientWidth + 1",
  )) as boolean;
}

/** Text content of a locator ("" when absent). */
export async function textOf(locator: Locator): Promise<string> {
  return (await locator.textContent()) ?? "";
}

/** What screen tests use of {@link sampleConsole}. */
export interface SampleConsole {
  /** An admin API request with the admin's session. */
  api(path: string, init?: Parameters<typeof requestJson>[1]): ReturnType<typeof requestJson>;
  /** A new page, signed in as the admin, on `#/{screen}`, watched for problems. */
  adminPage(screen: string): Promise<{ page: Page; problems: PageProblems }>;
  /** The admin's session token. */
  adminToken(): string;
}

/**
 * A full gateway with the sample channels and a headless Chromium, started before the
 * enclosing suite's tests and stopped after them (call it inside `describe`).
 */
export function sampleConsole(): SampleConsole {
  let full: FullGateway | undefined;
  let browser: BrowserContext | undefined;
  before(async () => {
    full = await startFull({ channels: SAMPLE_CHANNELS });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await full?.gw.stop();
  });
  const started = () => {
    if (full === undefined || browser === undefined) throw new Error("the suite has not started");
    return { full, browser };
  };
  return {
    api: (path, init = {}) => {
      const { full } = started();
      return requestJson(`${full.base}${path}`, { token: full.admin, ...init });
    },
    async adminPage(screen) {
      const { full, browser } = started();
      const page = await browser.newPage();
      const problems = await watchPage(page);
      await signIn(page, full.base);
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();
      await page.goto(`${full.base}/admin/#/${screen}`);
      return { page, problems };
    },
    adminToken: () => started().full.admin,
  };
}
