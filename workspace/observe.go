package workspace

import (
	"context"

	"github.com/keel-go/keel/observe"
)

// RunCommand runs cmd in r and reports it as an observe.Command op to the
// observer ctx carries (an agent's run carries one when it is observed);
// without one it is r.RunCommand and nothing else. Code that runs a
// sandbox's commands for an agent (its tools, the uploader) calls this
// rather than r.RunCommand, so that each command is counted and traced.
func RunCommand(ctx context.Context, r CommandRunner, cmd Command) (*CommandResult, error) {
	obs := observe.FromContext(ctx)
	if obs == nil {
		return r.RunCommand(ctx, cmd)
	}
	op := &observe.Op{Kind: observe.Command, Sandbox: r.ID(), ExitCode: -1}
	ctx, span := obs.Start(ctx, op)
	res, err := r.RunCommand(ctx, cmd)
	if res != nil && err == nil {
		op.ExitCode = res.ExitCode
	}
	span.End(err)
	return res, err
}

// Upload writes f at uploads/<UploadDir(threadID, resourceID)>/
// <sha256>.<ext> (see [UploadDir] and [Extension]) and says where it went,
// reported as an observe.Upload op to the observer ctx carries, if any.
//
// The file is written to PATH.<8 hex>.part and renamed over PATH, so a
// reader never sees half a file and two uploads of the same file at once
// leave one intact copy. A regular file of the same size already at PATH
// is the same content, since the name is its digest: nothing is written and
// Written is false. When a step fails, the part file is removed, even if
// ctx was cancelled.
//
// A [FileSystem] sandbox gets f.Data as is, without a copy. Otherwise the
// [CommandRunner] gets the data as base64 in commands of at most 96,000
// characters of it, decoded by base64 -d inside the sandbox; every value in
// those commands is quoted with [ShellQuote], and only one chunk is encoded
// at a time.
//
// A file over [MaxUploadSize] gives an error wrapping a
// *[FileTooLargeError], and nothing is written. Errors from the sandbox are
// wrapped; errors.Is finds context.Canceled when ctx ended the upload.
func (u *Uploader) Upload(ctx context.Context, threadID, resourceID string, f File) (Uploaded, error) {
	obs := observe.FromContext(ctx)
	if obs == nil {
		return u.upload(ctx, threadID, resourceID, f)
	}
	op := &observe.Op{Kind: observe.Upload, Sandbox: u.id, Size: int64(len(f.Data)), ThreadID: threadID, ResourceID: resourceID}
	ctx, span := obs.Start(ctx, op)
	up, err := u.upload(ctx, threadID, resourceID, f)
	op.Path, op.Written = up.Path, up.Written
	span.End(err)
	return up, err
}
