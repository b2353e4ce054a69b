// The real pi as the tests' judge. Opens each Pi session file with pi's own SessionManager and
// reports what pi itself sees: the header, the session name, the active branch (getBranch()),
// every leaf, and the model's view (buildSessionContext()). Pi rewrites old-version files in
// place when it opens them, so callers pass copies only.
//
// Two modes, one check:
//   node judge.mjs FILE...   prints one JSON line per file (for a person at a terminal);
//   node judge.mjs           serves the test run: reads requests {"id", "files": [...]} as JSON
//                            lines on stdin, answers {"id", "views": [...]} on stdout, one line
//                            per request, until stdin closes.
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

function view(file, sessionDir) {
  try {
    const manager = SessionManager.open(file, sessionDir, "/");
    const entries = manager.getEntries();
    const parents = new Set(entries.map((e) => e.parentId).filter(Boolean));
    const leaves = entries.filter((e) => !parents.has(e.id)).map((e) => e.id);
    const context = manager.buildSessionContext();
    return {
      file,
      header: manager.getHeader(),
      name: manager.getSessionName() ?? null,
      leafId: manager.getLeafId(),
      branch: manager.getBranch(),
      leaves,
      context: context.messages,
    };
  } catch (error) {
    return { file, error: String((error && error.stack) || error) };
  }
}

// A fresh session directory per request, as a fresh process had: no state crosses requests.
function views(files) {
  const sessionDir = mkdtempSync(join(tmpdir(), "pi-oracle-"));
  try {
    return files.map((file) => view(file, sessionDir));
  } finally {
    rmSync(sessionDir, { recursive: true, force: true });
  }
}

const files = process.argv.slice(2);
if (files.length) {
  for (const found of views(files)) console.log(JSON.stringify(found));
} else {
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    let answer;
    try {
      const request = JSON.parse(line);
      answer = { id: request.id, views: views(request.files) };
    } catch (error) {
      answer = { id: null, error: String((error && error.stack) || error) };
    }
    process.stdout.write(JSON.stringify(answer) + "\n");
  }
}
