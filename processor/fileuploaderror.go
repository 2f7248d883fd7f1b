package processor

import "fmt"

// The codes of a [FileUploadError].
const (
	// CodeNoSandbox means no workspace was given, or the workspace has no
	// sandbox for the run.
	CodeNoSandbox = "NO_SANDBOX"
	// CodeNoWriteCapability means the sandbox can neither write files nor run
	// commands.
	CodeNoWriteCapability = "NO_WRITE_CAPABILITY"
	// CodeInvalidMaxFileSize means MaxSize gave a limit of 0 or less, or over
	// workspace.MaxUploadSize.
	CodeInvalidMaxFileSize = "INVALID_MAX_FILE_SIZE"
	// CodeInvalidFilter means the Filter returned an error.
	CodeInvalidFilter = "INVALID_FILTER"
	// CodeInvalidFileData means the file's inline data cannot be decoded.
	CodeInvalidFileData = "INVALID_FILE_DATA"
	// CodeFileTooLarge means the file is over its MaxSize.
	CodeFileTooLarge = "FILE_TOO_LARGE"
	// CodeUploadFailed means writing the file to the sandbox failed.
	CodeUploadFailed = "UPLOAD_FAILED"
)

// FileUploadError stops a turn for a file that [FileUpload] could not
// check or upload. Errors of the input stage mean nothing was written.
type FileUploadError struct {
	// Code is one of the Code... constants, such as "FILE_TOO_LARGE".
	Code string
	// File is the file's display name; "" when the error is about no file
	// in particular (such as NO_SANDBOX at construction).
	File string
	// Err is the cause.
	Err error
}

// Error returns "processor: file upload: CODE: file NAME: cause".
func (e *FileUploadError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("processor: file upload: %s: %v", e.Code, e.Err)
	}
	return fmt.Sprintf("processor: file upload: %s: file %q: %v", e.Code, e.File, e.Err)
}

// Unwrap returns the cause.
func (e *FileUploadError) Unwrap() error { return e.Err }
