// Opens each Pi session file with the real pi's SessionManager and prints, one JSON line per file,
// what pi itself sees: the header, the session name, the active branch (getBranch()), every leaf,
// and the model's view (buildSessionContext()). Pi rewrites old-version files in place when it
// opens them, so callers pass copies only.
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const sessionDir = mkdtempSync(join(tmpdir(), "pi-oracle-"));
for (const file of process.argv.slice(2)) {
  try {
    const manager = SessionManager.open(file, sessionDir, "/");
    const entries = manager.getEntries();
    const parents = new Set(entries.map((e) => e.parentId).filter(Boolean));
    const leaves = entries.filter((e) => !parents.has(e.id)).map((e) => e.id);
    const context = manager.buildSessionContext();
    console.log(JSON.stringify({
      file,
      header: manager.getHeader(),
      name: manager.getSessionName() ?? null,
      leafId: manager.getLeafId(),
      branch: manager.getBranch(),
      leaves,
      context: context.messages,
    }));
  } catch (error) {
    console.log(JSON.stringify({ file, error: String(error && error.stack || error) }));
  }
}
