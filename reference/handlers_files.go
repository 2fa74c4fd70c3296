package reference

import (
	"context"
	"io"
	"net/http"
	"strconv"

	"github.com/conform-kit/conform/reference/ledger"
)

// Handlers of files and external links.

func (s *Server) createFile(rq *request) (any, error) {
	var in ledger.FileCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	return s.change(rq, "file", "created", func(t ledger.Tx) (any, error) {
		f, err := ledger.CreateFile(t, in)
		if err != nil {
			return nil, err
		}
		return viewFile(rq.base, f), nil
	})
}

func (s *Server) listFiles(rq *request) (any, error) {
	q, err := ledger.ParseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	items, total, err := listPage(s, rq, ledger.Tx.Files, "", nil, q)
	if err != nil {
		return nil, err
	}
	return newList(rq, "files", q, mapViews(rq.base, items, viewFile), total), nil
}

func (s *Server) getFile(rq *request) (any, error) {
	f, err := getOne(s, rq, ledger.Tx.Files, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewFile(rq.base, f), nil
}

func (s *Server) uploadFile(rq *request) (any, error) {
	id := rq.r.PathValue("id")
	if _, err := getOne(s, rq, ledger.Tx.Files, id); err != nil {
		return nil, err // another application's file: refused before the body is read
	}
	cs, streams := s.units.(ledger.ContentStore)
	if !streams {
		up, err := readMultipartFile(rq.r, nil)
		if err != nil {
			return nil, err
		}
		return s.uploadInto(rq, rq.user.App, func(t ledger.Tx) (ledger.File, error) { return ledger.PutContent(t, id, up) })
	}
	// Staged as it is read; the unit attaches it, or it is dropped.
	ctx, app := rq.r.Context(), rq.user.App
	drop := func(ref string) { cs.DropContent(context.WithoutCancel(ctx), app, ref) }
	up, err := stageMultipartFile(rq.r, nil, func(r io.Reader) (string, int64, error) {
		return cs.StageContent(ctx, app, id, r)
	}, drop)
	if err != nil {
		return nil, err
	}
	v, err := s.uploadInto(rq, app, func(t ledger.Tx) (ledger.File, error) { return ledger.PutContent(t, id, up) })
	if err != nil {
		drop(up.Ref)
	}
	return v, err
}

// uploadInto runs an upload of application app as one unit of work: the
// content stored, the file's updated event and the start of its review.
func (s *Server) uploadInto(rq *request, app string, put func(t ledger.Tx) (ledger.File, error)) (any, error) {
	var v fileView
	err := s.update(rq.r.Context(), app, func(t ledger.Tx) error {
		f, err := put(t)
		if err != nil {
			return err
		}
		v = viewFile(rq.base, f)
		t.Outbox().Emit("file", "updated", v)
		t.Outbox().After(s.cfg.ReviewDelay, ledger.TimerFileReview, f.ID, rq.base)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (s *Server) downloadFile(rq *request) (any, error) {
	f, err := getOne(s, rq, ledger.Tx.Files, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	if !f.HasContent() {
		return nil, ledger.ErrUnprocessable("file %s has no uploaded content", f.ID)
	}
	if cs, ok := s.units.(ledger.ContentStore); ok && f.Content == nil {
		ctx, app, ref := rq.r.Context(), rq.user.App, f.ContentRef
		return streamBody{contentType: f.ContentType, size: f.ContentSize, write: func(w io.Writer) error {
			return cs.WriteContent(ctx, app, ref, w)
		}}, nil
	}
	return rawBody{contentType: f.ContentType, data: f.Content}, nil
}

// streamBody is a file download a contentStore writes piece by piece.
type streamBody struct {
	contentType string
	size        int64
	write       func(io.Writer) error
}

// writeTo answers status with the content; a failure after the headers
// cuts the answer short of its Content-Length, which the client sees.
func (b streamBody) writeTo(s *Server, w http.ResponseWriter, status int) {
	h := w.Header()
	h.Set("Content-Type", b.contentType)
	h.Set("Content-Length", strconv.FormatInt(b.size, 10))
	w.WriteHeader(status)
	if err := b.write(w); err != nil {
		s.log.Error("stream a file's content", "error", err)
	}
}

func (s *Server) createExternalLink(rq *request) (any, error) {
	var in ledger.ExternalLinkCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	url := func(id string) string { return rq.base + "/external_links/" + id + "/upload" }
	return s.change(rq, "external_link", "created", func(t ledger.Tx) (any, error) {
		l, err := ledger.CreateLink(t, rq.user.ID, rq.r.PathValue("id"), in, url)
		if err != nil {
			return nil, err
		}
		return viewExternalLink(rq.base, l), nil
	})
}

func (s *Server) listExternalLinks(rq *request) (any, error) {
	q, err := ledger.ParseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	id := rq.r.PathValue("id")
	items, total, err := listPage(s, rq, ledger.Tx.Links, id, func(t ledger.Tx) error {
		_, err := t.Files().Get(id)
		return err
	}, q)
	if err != nil {
		return nil, err
	}
	for i := range items {
		items[i].Expired = !rq.now.Before(items[i].ExpiresAt.Time())
	}
	return newList(rq, "external_links", q, mapViews(rq.base, items, viewExternalLink), total), nil
}

func (s *Server) getExternalLink(rq *request) (any, error) {
	return s.read(rq, func(t ledger.Tx) (any, error) {
		l, err := ledger.GetLink(t, rq.r.PathValue("file_id"), rq.r.PathValue("id"), rq.now)
		if err != nil {
			return nil, err
		}
		return viewExternalLink(rq.base, l), nil
	})
}

// externalUpload is the PUT to an external link's URL: no credentials, the
// link id is the credential (the unit of work is its application's); the
// body is the file's bytes.
func (s *Server) externalUpload(rq *request) (any, error) {
	name := ""
	if _, params, err := mimeParams(rq.r.Header.Get("Content-Disposition")); err == nil {
		name = params["filename"]
	}
	up, err := describeUpload(name, rq.r.Header.Get("Content-Type"), rq.body, nil)
	if err != nil {
		return nil, err
	}
	id := rq.r.PathValue("id")
	app, ok := s.units.LinkOwner(rq.r.Context(), id)
	if !ok {
		return nil, ledger.ErrNotFound(id)
	}
	return s.uploadInto(rq, app, func(t ledger.Tx) (ledger.File, error) {
		l, err := ledger.UploadLink(t, id, t.Now())
		if err != nil {
			return ledger.File{}, err
		}
		return ledger.PutContent(t, l.FileID, up)
	})
}
