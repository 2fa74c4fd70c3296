package reference

import (
	"strings"
	"time"
)

// File statuses (spec 3.1); INVALID is the reject code.
const (
	fileRequiresUpload = "REQUIRES_UPLOAD"
	filePending        = "PENDING"
	fileUploaded       = "UPLOADED"
	fileInvalid        = "INVALID"
)

// defaultLinkDuration is the lifetime in minutes of an external link created without one.
const defaultLinkDuration = 60

// upload is the content of an uploaded file or evidence.
type upload struct {
	name        string
	contentType string
	extension   string
	data        []byte
	// ref and size: content staged in a contentStore instead of data.
	ref  string
	size int64
}

// len is the upload's length.
func (up upload) len() int64 {
	if up.ref != "" {
		return up.size
	}
	return int64(len(up.data))
}

// The rules of evidence, files, their content and external links, and
// webhooks, written against a unit of work (tx).

// createEvidence adds evidence (its name and content type as tags) to a
// dispute of the application.
func createEvidence(t tx, disputeID string, up upload) (evidence, error) {
	if err := admit(t, len(up.name)+len(up.contentType)); err != nil {
		return evidence{}, err
	}
	if _, err := t.Disputes().Get(disputeID); err != nil {
		return evidence{}, err
	}
	e := evidence{
		meta:    newMeta(t.NewID(prefixEvidence), t.App(), t.Now()),
		Dispute: disputeID,
		State:   "SUCCEEDED",
		Tags: tags{
			"file-name":      up.name,
			"content-type":   up.contentType,
			"file-extension": up.extension,
		},
	}
	t.Evidence().Put(&e)
	return e, nil
}

// getEvidence fetches evidence through its dispute's path.
func getEvidence(t tx, disputeID, id string) (evidence, error) {
	e, err := t.Evidence().Get(id)
	if err != nil || e.Dispute != disputeID {
		return evidence{}, errNotFound(id)
	}
	return e, nil
}

// createFile stores a file awaiting its content, linked to a merchant.
func createFile(t tx, in fileCreate) (file, error) {
	if err := admit(t, in.size); err != nil {
		return file{}, err
	}
	if _, err := t.Merchants().Get(in.LinkedTo); err != nil {
		return file{}, errInvalidField("/linked_to", "merchant %s was not found", in.LinkedTo)
	}
	f := file{
		meta:          newMeta(t.NewID(prefixFile), t.App(), t.Now()),
		ApplicationID: t.App(),
		DisplayName:   in.DisplayName,
		LinkedTo:      in.LinkedTo,
		LinkedType:    in.LinkedType,
		Status:        fileRequiresUpload,
		Type:          in.Type,
		Tags:          orEmpty(in.Tags),
	}
	if f.LinkedType == "" {
		f.LinkedType = "MERCHANT"
	}
	if f.Type == "" {
		f.Type = "OTHER"
	}
	t.Files().Put(&f)
	return f, nil
}

// putContent stores the content of a file awaiting it, once, within the
// application's upload bound, and moves the file to PENDING.
func putContent(t tx, fileID string, up upload) (file, error) {
	f, err := t.Files().Get(fileID)
	if err != nil {
		return file{}, err
	}
	if f.Status != fileRequiresUpload {
		return file{}, errUnprocessable("file %s is %s; content can be uploaded only once", f.ID, f.Status)
	}
	if err := takeUpload(t, up.len()); err != nil {
		return file{}, err
	}
	f.content, f.contentType = up.data, up.contentType
	if up.ref != "" {
		f.contentRef, f.contentSize = up.ref, up.size
	}
	if up.extension != "" {
		ext := up.extension
		f.Extension = &ext
	}
	f.Status = filePending
	f.UpdatedAt = jsonTime(t.Now())
	t.Files().Put(&f)
	return f, nil
}

// reviewFile ends the simulated review of a PENDING file: INVALID when its
// display name contains "reject", UPLOADED otherwise.
func reviewFile(t tx, id string) (file, bool) {
	f, err := t.Files().Get(id)
	if err != nil || f.Status != filePending {
		return file{}, false
	}
	f.Status = fileUploaded
	if strings.Contains(strings.ToLower(f.DisplayName), "reject") {
		f.Status = fileInvalid
	}
	f.UpdatedAt = jsonTime(t.Now())
	t.Files().Put(&f)
	return f, true
}

// download returns a file with its uploaded content.
func download(t tx, id string) (file, error) {
	f, err := t.Files().Get(id)
	if err != nil {
		return file{}, err
	}
	if !f.hasContent() {
		return file{}, errUnprocessable("file %s has no uploaded content", id)
	}
	return f, nil
}

// createLink adds an external link of user userID to a file; url builds
// the link's URL from its id.
func createLink(t tx, userID, fileID string, in externalLinkCreate, url func(id string) string) (externalLink, error) {
	if err := admit(t, in.size); err != nil {
		return externalLink{}, err
	}
	if _, err := t.Files().Get(fileID); err != nil {
		return externalLink{}, err
	}
	duration := defaultLinkDuration
	if in.Duration != nil {
		duration = *in.Duration
	}
	now := t.Now()
	l := externalLink{
		meta:      newMeta(t.NewID(prefixLink), t.App(), now),
		FileID:    fileID,
		Type:      in.Type,
		Duration:  duration,
		ExpiresAt: jsonTime(now.Add(time.Duration(duration) * time.Minute)),
		UserID:    userID,
		Tags:      orEmpty(in.Tags),
	}
	l.URL = url(l.ID)
	t.Links().Put(&l)
	return l, nil
}

// getLink fetches a link through its file's path, expired or not at now.
func getLink(t tx, fileID, id string, now time.Time) (externalLink, error) {
	l, err := t.Links().Get(id)
	if err != nil || l.FileID != fileID {
		return externalLink{}, errNotFound(id)
	}
	l.Expired = !now.Before(time.Time(l.ExpiresAt))
	return l, nil
}

// uploadLink is the open UPLOAD link id of the unit's application.
func uploadLink(t tx, id string, now time.Time) (externalLink, error) {
	l, err := t.Links().Get(id)
	switch {
	case err != nil:
		return externalLink{}, errNotFound(id)
	case l.Type != "UPLOAD":
		return externalLink{}, errUnprocessable("external link %s is a %s link, not an UPLOAD link", id, l.Type)
	case !now.Before(time.Time(l.ExpiresAt)):
		return externalLink{}, errUnprocessable("external link %s has expired", id)
	}
	return l, nil
}

// createWebhook stores an enabled webhook with its signing secret, within
// the application's bound of enabled webhooks.
func createWebhook(t tx, in webhookBody, secret string) (webhook, error) {
	if err := admit(t, in.size); err != nil {
		return webhook{}, err
	}
	if err := admitWebhook(t); err != nil {
		return webhook{}, err
	}
	w := webhook{
		meta:             newMeta(t.NewID(prefixWebhook), t.App(), t.Now()),
		Application:      t.App(),
		Enabled:          true,
		EnabledEvents:    []any{},
		Authentication:   webhookAuthentication{Type: "NONE"},
		SecretSigningKey: secret,
		Tags:             tags{},
	}
	applyWebhookBody(&w, in)
	t.Webhooks().Put(&w)
	return w, nil
}

func applyWebhookBody(w *webhook, in webhookBody) {
	if in.URL != nil {
		w.URL = *in.URL
	}
	if in.Enabled != nil {
		w.Enabled = *in.Enabled
	}
	if in.EnabledEvents != nil {
		w.EnabledEvents = in.EnabledEvents
	}
	if in.Tags != nil {
		w.Tags = in.Tags
	}
	if in.Authentication != nil && in.Authentication.Type != "" {
		w.Authentication = in.Authentication.stored()
	}
}

func updateWebhook(t tx, id string, in webhookBody) (webhook, error) {
	w, err := t.Webhooks().Get(id)
	if err != nil {
		return webhook{}, err
	}
	applyWebhookBody(&w, in)
	w.UpdatedAt = jsonTime(t.Now())
	t.Webhooks().Put(&w)
	return w, nil
}
