// Package schema pins the upstream MCP JSON schema that mcpwire generates its
// Go types from, and loads that schema with its content hash verified.
//
// # The upstream file is not vendored
//
// The schema lives in the specification repository
// github.com/modelcontextprotocol/modelcontextprotocol. This repository does
// not hold a copy of it. Instead, each revision has a pin, a small
// line-based "key: value" file at schema/<revision>/pin.txt that is embedded
// into this package:
//
//	revision: 2026-07-28
//	repository: github.com/modelcontextprotocol/modelcontextprotocol
//	commit: <40-hex upstream commit>
//	path: schema/2026-07-28/schema.json
//	sha256: <64-hex sha256 of the file at that commit>
//
// Blank lines and lines starting with "#" are ignored. [Lookup] returns the
// pin of a revision and [Revisions] lists the pinned ones. Two revisions are
// generated into Go packages:
//
//   - [Current] (2026-07-28) into package protocol;
//   - [Legacy] (2025-11-25) into package protocol/mcp20251125, the wire types
//     of clients that open a session with initialize.
//
// The generator (../gen) maps each of these revisions to its package; a pin
// that no package is generated from can still be loaded, for example to
// compare two revisions. Three such pins exist: 2024-11-05, 2025-03-26 and
// 2025-06-18, the older revisions whose clients open with initialize
// ([LegacyRevisions] lists all four, newest first). The generator reads them,
// with [Legacy] and [Current], to derive the tables that project 2026-07-28
// values onto each legacy revision (server/internal/legacy).
//
// # Extension pins
//
// An extension that publishes its own schema is pinned the same way, in
// schema/ext-<name>/pin.txt (the tasks extension: schema/ext-tasks/pin.txt,
// repository github.com/modelcontextprotocol/ext-tasks, path
// schema/draft/schema.json, revision "draft"). [LookupExtension] returns it
// and [Extensions] lists the pinned ones; these folders are not revisions.
// In a spec folder the extension's repository sits under its name
// ($MCP_SPEC_DIR/ext-tasks/schema/draft/schema.json): the pin's
// [Pin.SpecSubdir]. The cache and the download work as for a revision.
//
// An extension whose schema is published in a package rather than at a
// repository commit (MCP Apps: the npm package
// @modelcontextprotocol/ext-apps, schema/ext-apps/pin.txt) is pinned by
// the package instead of a commit: the keys package
// (npm:<name>@<version>), package-sha256 (the tarball's) and package-path
// (the file inside it) replace commit, path is where the spec folder holds
// the file ($MCP_SPEC_DIR/ext-apps/schema/schema.json), and sha256 is the
// file's. Such a pin is read from the spec folder or the cache, never
// downloaded.
//
// # Loading
//
// [Load] returns the bytes of the pinned file, taken from the first of these
// that applies:
//
//  1. a local checkout of the upstream repository, named by [Options.SpecDir]
//     or the MCP_SPEC_DIR environment variable (the file is read from
//     <dir>/<path>, or <dir>/ext-<name>/<path> for an extension; nothing is
//     downloaded or cached);
//  2. the user cache (os.UserCacheDir()/mcpwire/schema by default);
//  3. a download from raw.githubusercontent.com at the pinned commit (see
//     [Pin.RawURL]), which is then written to the cache.
//
// Every source is checked against the pinned sha256. A mismatch is reported
// as a [*MismatchError] naming the wanted and the actual hash and where the
// bytes came from, except that a corrupted cache file is removed and
// downloaded again.
//
// # Bumping the revision
//
//  1. Add a folder schema/<rev>/pin.txt with the new revision, the upstream
//     commit, the path of the schema file at that commit and its sha256
//     (for example "sha256sum $MCP_SPEC_DIR/schema/<rev>/schema.json" on a
//     checkout of that commit). Keep the old pin so the two can be compared.
//  2. Set [Current] to the new revision.
//  3. Run "go generate ./..." to regenerate the protocol package (and the
//     other generated packages, see ../gen/README.md).
//  4. Read "go run ./tools/schemadiff OLD NEW" to review what changed between
//     the two revisions, and adapt the hand-written code to it.
package schema
