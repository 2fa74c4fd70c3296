package reference

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/conform-kit/conform/reference/ledger"
)

// evidenceTypes are the content types accepted as dispute evidence.
var evidenceTypes = []string{"application/pdf", "image/jpeg", "image/png", "image/tiff", "text/plain", "text/csv"}

// extensionTypes maps file extensions to content types, both ways.
var extensionTypes = map[string]string{
	"pdf": "application/pdf", "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png",
	"tif": "image/tiff", "tiff": "image/tiff", "txt": "text/plain", "csv": "text/csv",
	"gif": "image/gif", "json": "application/json",
}

var typeExtensions = map[string]string{
	"application/pdf": "pdf", "image/jpeg": "jpg", "image/png": "png", "image/tiff": "tiff",
	"text/plain": "txt", "text/csv": "csv", "image/gif": "gif", "application/json": "json",
}

// readMultipartFile reads the part named file of a multipart request (at most
// 10 MiB). allowed, when not nil, restricts its content type.
func readMultipartFile(r *http.Request, allowed []string) (ledger.Upload, error) {
	part, err := filePart(r)
	if err != nil {
		return ledger.Upload{}, err
	}
	// The declared length bounds the part: it sizes the buffer.
	size := int64(0)
	if n := r.ContentLength; n > 0 && n <= maxUploadBytes+multipartSlack {
		size = n
	}
	data, err := readSized(io.LimitReader(part, maxUploadBytes+1), size)
	if err != nil {
		return ledger.Upload{}, multipartError(err)
	}
	if len(data) > maxUploadBytes {
		return ledger.Upload{}, &ledger.DomainError{Kind: ledger.KindTooLarge, Message: "the file exceeds 10 MiB"}
	}
	return describeUpload(part.FileName(), part.Header.Get("Content-Type"), data, allowed)
}

// filePart is the first form part named file of a multipart request.
func filePart(r *http.Request) (*multipart.Part, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, &ledger.DomainError{Kind: ledger.KindBadRequest, Message: "the body is not a valid multipart/form-data body"}
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, ledger.ErrInvalidField("file", "a form part named file is required")
		}
		if err != nil {
			return nil, multipartError(err)
		}
		if part.FormName() == "file" {
			return part, nil
		}
	}
}

// stageMultipartFile is readMultipartFile for a contentStore: the part's
// first bytes (which settle its content type) are read, then the whole part
// is staged through stage as it arrives, never held in one buffer. Over
// maxUploadBytes it is refused and dropped.
func stageMultipartFile(r *http.Request, allowed []string, stage func(io.Reader) (string, int64, error), drop func(ref string)) (ledger.Upload, error) {
	part, err := filePart(r)
	if err != nil {
		return ledger.Upload{}, err
	}
	body := io.LimitReader(part, maxUploadBytes+1)
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(body, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return ledger.Upload{}, multipartError(err)
	}
	head = head[:n]
	up, err := describeUpload(part.FileName(), part.Header.Get("Content-Type"), head, allowed)
	if err != nil {
		return ledger.Upload{}, err
	}
	ref, size, err := stage(io.MultiReader(bytes.NewReader(head), body))
	if err != nil {
		if ref != "" {
			drop(ref)
		}
		var de *ledger.DomainError
		if errors.As(err, &de) {
			return ledger.Upload{}, err
		}
		return ledger.Upload{}, multipartError(err)
	}
	if size > maxUploadBytes {
		drop(ref)
		return ledger.Upload{}, &ledger.DomainError{Kind: ledger.KindTooLarge, Message: "the file exceeds 10 MiB"}
	}
	up.Data, up.Ref, up.Size = nil, ref, size
	return up, nil
}

// sniffLen is how many bytes http.DetectContentType reads.
const sniffLen = 512

func multipartError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return &ledger.DomainError{Kind: ledger.KindTooLarge, Message: "the upload exceeds 10 MiB"}
	}
	return &ledger.DomainError{Kind: ledger.KindBadRequest, Message: "the multipart body could not be read"}
}

// describeUpload settles name, content type and extension of uploaded bytes.
func describeUpload(name, contentType string, data []byte, allowed []string) (ledger.Upload, error) {
	if len(data) == 0 {
		return ledger.Upload{}, ledger.ErrInvalidField("file", "the file is empty")
	}
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	if name == "." || name == "/" {
		name = ""
	}
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	ct, _, err := mime.ParseMediaType(contentType)
	if err != nil || ct == "application/octet-stream" {
		ct = extensionTypes[ext]
	}
	if ct == "" {
		ct, _, _ = mime.ParseMediaType(http.DetectContentType(data))
	}
	if allowed != nil && !slices.Contains(allowed, ct) {
		return ledger.Upload{}, ledger.ErrInvalidField("file", "content type %s is not accepted; use one of %s", ct, strings.Join(allowed, ", "))
	}
	if ext == "" {
		ext = typeExtensions[ct]
	}
	if name == "" {
		name = "upload"
		if ext != "" {
			name += "." + ext
		}
	}
	return ledger.Upload{Name: name, ContentType: ct, Extension: ext, Data: data}, nil
}

// fileReview is the timer of an uploaded file's simulated review: it ends
// the review and sends the updated event when the file reaches UPLOADED (or
// INVALID), in one unit of work.
func (s *Server) fileReview(base, app, id string) {
	_ = s.update(s.ctx, app, func(t ledger.Tx) error {
		if f, ok := ledger.ReviewFile(t, id); ok {
			t.Outbox().Emit("file", "updated", viewFile(base, f))
		}
		return nil
	})
}
