// Package workspace gives an agent a place where its files live and its
// commands run, and puts users' files there when a model cannot read them.
//
// # Sandboxes and capabilities
//
// A [Sandbox] only has an ID. What it can do is told by the optional
// capabilities it implements, found by type assertion: [FileSystem] reads
// and writes files, [CommandRunner] runs shell commands, and [WorkDirer]
// tells the absolute directory its commands start in (such as
// "/home/user"). Paths given to a sandbox are relative to that directory;
// one that would leave it is refused with an error wrapping
// [ErrPathEscapes].
//
// A [Workspace] holds one sandbox for every run ([New]) or asks a
// [Resolver] for the sandbox of each run ([NewResolved]), for example one
// per user so that users cannot read each other's files.
//
// # Uploads
//
// [Upload] writes a file into a sandbox and returns an [Uploaded] that
// says where it went. The path is content-addressed:
//
//	uploads/<UploadDir(threadID, resourceID)>/<sha256>.<ext>
//
// [UploadDir] makes the thread ID (else the resource ID, else "shared")
// safe in a path and in a shell command, see [SafeDir]; [Extension] takes
// the extension from the file name, or from the media type of an unnamed
// file. The same content with the same extension in the same thread always
// lands at the same path, so uploading it again writes nothing. A file at
// that path whose size differs (one the agent edited with its tools, say)
// is replaced.
//
// Writes are atomic: the data goes to a part file that is renamed into
// place, and a failed or cancelled upload removes its part file. A
// [FileSystem] receives the caller's bytes without a copy; a sandbox that
// can only run commands receives them as base64 in commands of at most
// 96,000 characters, each value quoted with [ShellQuote]. Files over
// [MaxUploadSize] are refused with a [*FileTooLargeError] before anything
// is written.
//
// # Notes
//
// A file taken out of a prompt is replaced by a text part that tells the
// model what became of it: [UploadNote] for a file now in the sandbox,
// [NotUploadedNote] for one that was too large or undecodable (with a
// [FileTooLargeError] message or an [UndecodableReason]), and
// [UnavailablePlaceholder] when there was no sandbox or the upload failed.
// Names in notes are display names (see [DisplayName]): control characters
// and terminal escape sequences removed, at most 200 characters.
//
// "Unnamed" in a reason means the sender gave no file name. Such a file's
// note shows its media type on the name line but its reason says "An
// unnamed file", so a media type is never mistaken for a file name:
//
//	[File not uploaded]
//	name: application/zip
//	reason: An unnamed file is 10485761 bytes, over the 10485760 byte limit.
package workspace
