// Package workspace gives an agent a place where its files live and its
// commands run, and puts users' files there.
//
// # Sandboxes and capabilities
//
// A [Sandbox] only has an ID. What it can do is told by the optional
// capabilities it implements, found by type assertion: [FileSystem] reads
// and writes files, [FileOpener] opens one for reading without loading it
// whole (read_file reads only what it shows, a download streams),
// refusing anything but a regular file with [ErrNotRegularFile] and never
// blocking on a FIFO, [CommandRunner] runs shell commands, [TreeRemover]
// removes a directory and everything under it, and [WorkDirer] tells the
// absolute directory its commands start in (such as "/home/user"). Paths
// given to a sandbox are relative to that directory; one that would leave
// it is refused with an error wrapping [ErrPathEscapes].
//
// TreeRemover is how a thread's uploads go with the thread: deleting a
// thread (agent.DeleteThread, which the server and the command line use)
// removes uploads/<UploadDir(threadID, resourceID)> from the sandbox each
// agent resolves for it. A TreeRemover removes a symbolic link, never
// what it points to, and refuses a path through a link that leads out of
// the sandbox, since a command may have planted one; it cannot remove the
// working directory itself. A sandbox without it keeps the files of a
// deleted thread.
//
// A [Workspace] holds one sandbox for every run ([New]) or asks a
// [Resolver] for the sandbox of each run ([NewResolved]), for example one
// per user so that users cannot read each other's files.
//
// # Uploads
//
// [Upload] writes a file into a sandbox and returns an [Uploaded] that
// says where it went; an [Uploader], made once per sandbox by
// [NewUploader], checks once that the sandbox can take files and then
// writes any number of them. The path is content-addressed:
//
//	uploads/<UploadDir(threadID, resourceID)>/<sha256>.<ext>
//
// [UploadDir] makes the thread ID (else the resource ID, else "shared")
// safe in a path and in a shell command, see [SafeDir]; [Extension] takes
// the extension from the file name, or from the media type of an unnamed
// file. The same content with the same extension in the same thread always
// lands at the same path, so uploading it again writes nothing. A file at
// that path whose size differs (one the agent edited with its tools, say)
// is replaced. A caller that knows the content's digest already (a stored
// file carries it) passes it in [File].SHA256 and spares a pass over the
// bytes.
//
// Writes are atomic: the data goes to a part file that is renamed into
// place, and a failed or cancelled upload removes its part file; the part
// files of uploads that were killed (kill -9) are removed by the next
// upload into the directory once they are an hour old. A
// [FileSystem] receives the caller's bytes without a copy; a sandbox that
// can only run commands receives them as base64 in commands of at most
// 96,000 characters, each value quoted with [ShellQuote]. Files over
// [MaxUploadSize] are refused with a [*FileTooLargeError] before anything
// is written.
//
// What the model is told about an uploaded file (or one that could not be
// uploaded) is written by the processors that upload it, in package
// processor.
package workspace
