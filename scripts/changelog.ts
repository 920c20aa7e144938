// `npm run changelog` writes CHANGELOG.md from the Conventional Commits of the history: git-cliff
// (cliff.toml) renders each release's range of changelog/releases.json (version → commit; the
// repository has no tags), Unreleased is the range from the last release to HEAD, and each section
// starts with its curated notes, changelog/notes/<version>.md (unreleased.md), the migrations.
// `npm run changelog -- --check` (in `npm test`) regenerates the file and fails on a difference.
// It lists Unreleased up to the commit the file records (<!-- unreleased-up-to: … -->), not to
// HEAD: no commit can hold a list that includes itself, so a check against HEAD would fail after
// every feat or fix. The check thus stays green as commits land, and fails when the notes,
// releases.json, cliff.toml or the file itself changed without a regeneration.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { CommandError, runCommand } from '../tools/cli/runCommand.js';
import { projectRoot } from '../tools/emulator/paths.js';
import { ensurePythonTool } from '../tools/python/ensurePythonTool.js';
import {
  type ChangelogSection,
  renderChangelog,
  unreleasedStamp,
} from '../tools/release/changelogText.js';

const run = promisify(execFile);
/**
 * git-cliff, pinned, from PyPI into .cache/ (as the harness installs MiniStack): its npm package
 * carries the binary in one optional package per platform, and a registry that lacks one leaves
 * the lock file without it, which `npm ci` then refuses.
 */
const GIT_CLIFF = {
  name: 'git-cliff',
  version: '2.14.2',
  program: 'git-cliff',
  purpose: 'git-cliff, which writes CHANGELOG.md',
} as const;
const CHANGELOG = join(projectRoot, 'CHANGELOG.md');
const NOTES = join(projectRoot, 'changelog', 'notes');

const { check } = new Command('npm run changelog')
  .description('write CHANGELOG.md from the commits and changelog/ (npm test runs --check)')
  .option('--check', 'regenerate and fail if CHANGELOG.md differs, writing nothing')
  .parse()
  .opts<{ check?: boolean }>();

await runCommand('npm run changelog', async () => {
  const releases = await readReleases();
  const upTo = check === true ? await recordedStamp() : await git('rev-parse', 'HEAD');
  await mustBeAncestor(releases.at(-1)?.commit, upTo, 'the Unreleased list');
  const sections = await Promise.all(
    [...releases, { version: 'Unreleased', commit: upTo }].map((release, index, all) =>
      sectionOf(release, all[index - 1]),
    ),
  );
  const text = renderChangelog(
    readFileSync(join(projectRoot, 'changelog', 'header.md'), 'utf8'),
    sections.reverse(),
  );
  if (check !== true) {
    writeFileSync(CHANGELOG, text);
    console.log(`npm run changelog: wrote CHANGELOG.md (${text.split('\n').length - 1} lines)`);
    return 0;
  }
  return compare(readFileSync(CHANGELOG, 'utf8'), text);
});

interface Release {
  readonly version: string;
  readonly commit: string;
}

/** changelog/releases.json, oldest first, each commit in this history and after the one before. */
async function readReleases(): Promise<Release[]> {
  const map = JSON.parse(
    readFileSync(join(projectRoot, 'changelog', 'releases.json'), 'utf8'),
  ) as Record<string, string>;
  const releases = Object.entries(map).map(([version, commit]) => ({ version, commit }));
  for (const [index, release] of releases.entries()) {
    await mustBeAncestor(releases[index - 1]?.commit, release.commit, release.version);
    await mustBeAncestor(release.commit, 'HEAD', release.version);
  }
  return releases;
}

async function recordedStamp(): Promise<string> {
  const stamp = unreleasedStamp(readFileSync(CHANGELOG, 'utf8'));
  if (stamp === undefined) {
    throw new CommandError(
      'CHANGELOG.md records no <!-- unreleased-up-to: <commit> -->: run npm run changelog',
    );
  }
  await mustBeAncestor(stamp, 'HEAD', 'the Unreleased list');
  return stamp;
}

async function sectionOf(
  release: Release,
  previous: Release | undefined,
): Promise<ChangelogSection> {
  // The first release's range starts after the root commit (git-cliff takes no open range); the
  // root commit is the scaffold (chore), which the changelog would skip anyway.
  const from = previous?.commit ?? (await git('rev-list', '--max-parents=0', release.commit));
  const notesFile = join(NOTES, `${release.version.toLowerCase()}.md`);
  const released = release.version !== 'Unreleased';
  return {
    title: release.version,
    commit: released ? await git('rev-parse', release.commit) : release.commit,
    ...(released ? { date: await git('log', '-1', '--format=%cs', release.commit) } : {}),
    ...(previous === undefined ? {} : { previous: previous.version }),
    ...(existsSync(notesFile) ? { notes: readFileSync(notesFile, 'utf8') } : {}),
    commits: await cliff(`${from}..${release.commit}`),
  };
}

async function cliff(range: string): Promise<string> {
  const bin = await ensurePythonTool(GIT_CLIFF);
  const { stdout } = await run(bin, ['--config', 'cliff.toml', '--strip', 'all', range], {
    cwd: projectRoot,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

async function git(...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd: projectRoot });
  return stdout.trim();
}

/** Fails, naming `what`, unless `ancestor` (none: nothing to check) is `descendant` or before it. */
async function mustBeAncestor(
  ancestor: string | undefined,
  descendant: string,
  what: string,
): Promise<void> {
  if (ancestor === undefined) return;
  try {
    await run('git', ['merge-base', '--is-ancestor', ancestor, descendant], { cwd: projectRoot });
  } catch {
    throw new CommandError(
      `${what}: commit ${ancestor} is not in this history before ${descendant} (a shallow clone? fetch the whole history; a rewritten one? fix changelog/releases.json, then npm run changelog)`,
    );
  }
}

function compare(written: string, expected: string): number {
  if (written === expected) {
    console.log('npm run changelog: CHANGELOG.md is up to date');
    return 0;
  }
  const writtenLines = written.split('\n');
  const line = expected.split('\n').findIndex((text, index) => text !== writtenLines[index]);
  console.error(
    `npm run changelog: CHANGELOG.md differs from what changelog/ and the commits give, from line ${line + 1}; run npm run changelog and commit the result (edit changelog/notes/, not CHANGELOG.md)`,
  );
  return 1;
}
