package ledger

import (
	"strings"
	"time"
)

// File statuses (spec 3.1); INVALID is the reject code.
const (
	FileRequiresUpload = "REQUIRES_UPLOAD"
	FilePending        = "PENDING"
	FileUploaded       = "UPLOADED"
	FileInvalid        = "INVALID"
)

// defaultLinkDuration is the lifetime in minutes of an external link created without one.
const defaultLinkDuration = 60

// Upload is the content of an uploaded file or evidence.
type Upload struct {
	Name        string
	ContentType string
	Extension   string
	Data        []byte
	// Ref and size: content staged in a contentStore instead of data.
	Ref  string
	Size int64
}

// len is the upload's length.
func (up Upload) len() int64 {
	if up.Ref != "" {
		return up.Size
	}
	return int64(len(up.Data))
}

// The rules of evidence, files, their content and external links, and
// webhooks, written against a unit of work (tx).

// CreateEvidence adds evidence (its name and content type as tags) to a
// dispute of the application.
func CreateEvidence(t Tx, disputeID string, up Upload) (Evidence, error) {
	if err := admit(t, len(up.Name)+len(up.ContentType)); err != nil {
		return Evidence{}, err
	}
	if _, err := t.Disputes().Get(disputeID); err != nil {
		return Evidence{}, err
	}
	e := Evidence{
		Meta:    NewMeta(t.NewID(PrefixEvidence), t.App(), t.Now()),
		Dispute: disputeID,
		State:   "SUCCEEDED",
		Tags: Tags{
			"file-name":      up.Name,
			"content-type":   up.ContentType,
			"file-extension": up.Extension,
		},
	}
	t.Evidence().Put(&e)
	return e, nil
}

// GetEvidence fetches evidence through its dispute's path.
func GetEvidence(t Tx, disputeID, id string) (Evidence, error) {
	e, err := t.Evidence().Get(id)
	if err != nil || e.Dispute != disputeID {
		return Evidence{}, ErrNotFound(id)
	}
	return e, nil
}

// CreateFile stores a file awaiting its content, linked to a merchant.
func CreateFile(t Tx, in FileCreate) (File, error) {
	if err := admit(t, in.size); err != nil {
		return File{}, err
	}
	if _, err := t.Merchants().Get(in.LinkedTo); err != nil {
		return File{}, ErrInvalidField("/linked_to", "merchant %s was not found", in.LinkedTo)
	}
	f := File{
		Meta:          NewMeta(t.NewID(PrefixFile), t.App(), t.Now()),
		ApplicationID: t.App(),
		DisplayName:   in.DisplayName,
		LinkedTo:      in.LinkedTo,
		LinkedType:    in.LinkedType,
		Status:        FileRequiresUpload,
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

// PutContent stores the content of a file awaiting it, once, within the
// application's upload bound, and moves the file to PENDING.
func PutContent(t Tx, fileID string, up Upload) (File, error) {
	f, err := t.Files().Get(fileID)
	if err != nil {
		return File{}, err
	}
	if f.Status != FileRequiresUpload {
		return File{}, ErrUnprocessable("file %s is %s; content can be uploaded only once", f.ID, f.Status)
	}
	if err := takeUpload(t, up.len()); err != nil {
		return File{}, err
	}
	f.Content, f.ContentType = up.Data, up.ContentType
	if up.Ref != "" {
		f.ContentRef, f.ContentSize = up.Ref, up.Size
	}
	if up.Extension != "" {
		ext := up.Extension
		f.Extension = &ext
	}
	f.Status = FilePending
	f.UpdatedAt = JSONTime(t.Now())
	t.Files().Put(&f)
	return f, nil
}

// ReviewFile ends the simulated review of a PENDING file: INVALID when its
// display name contains "reject", UPLOADED otherwise.
func ReviewFile(t Tx, id string) (File, bool) {
	f, err := t.Files().Get(id)
	if err != nil || f.Status != FilePending {
		return File{}, false
	}
	f.Status = FileUploaded
	if strings.Contains(strings.ToLower(f.DisplayName), "reject") {
		f.Status = FileInvalid
	}
	f.UpdatedAt = JSONTime(t.Now())
	t.Files().Put(&f)
	return f, true
}

// download returns a file with its uploaded content.
func download(t Tx, id string) (File, error) {
	f, err := t.Files().Get(id)
	if err != nil {
		return File{}, err
	}
	if !f.HasContent() {
		return File{}, ErrUnprocessable("file %s has no uploaded content", id)
	}
	return f, nil
}

// CreateLink adds an external link of user userID to a file; url builds
// the link's URL from its id.
func CreateLink(t Tx, userID, fileID string, in ExternalLinkCreate, url func(id string) string) (ExternalLink, error) {
	if err := admit(t, in.size); err != nil {
		return ExternalLink{}, err
	}
	if _, err := t.Files().Get(fileID); err != nil {
		return ExternalLink{}, err
	}
	duration := defaultLinkDuration
	if in.Duration != nil {
		duration = *in.Duration
	}
	now := t.Now()
	l := ExternalLink{
		Meta:      NewMeta(t.NewID(PrefixLink), t.App(), now),
		FileID:    fileID,
		Type:      in.Type,
		Duration:  duration,
		ExpiresAt: JSONTime(now.Add(time.Duration(duration) * time.Minute)),
		UserID:    userID,
		Tags:      orEmpty(in.Tags),
	}
	l.URL = url(l.ID)
	t.Links().Put(&l)
	return l, nil
}

// GetLink fetches a link through its file's path, expired or not at now.
func GetLink(t Tx, fileID, id string, now time.Time) (ExternalLink, error) {
	l, err := t.Links().Get(id)
	if err != nil || l.FileID != fileID {
		return ExternalLink{}, ErrNotFound(id)
	}
	l.Expired = !now.Before(time.Time(l.ExpiresAt))
	return l, nil
}

// UploadLink is the open UPLOAD link id of the unit's application.
func UploadLink(t Tx, id string, now time.Time) (ExternalLink, error) {
	l, err := t.Links().Get(id)
	switch {
	case err != nil:
		return ExternalLink{}, ErrNotFound(id)
	case l.Type != "UPLOAD":
		return ExternalLink{}, ErrUnprocessable("external link %s is a %s link, not an UPLOAD link", id, l.Type)
	case !now.Before(time.Time(l.ExpiresAt)):
		return ExternalLink{}, ErrUnprocessable("external link %s has expired", id)
	}
	return l, nil
}

// CreateWebhook stores an enabled webhook with its signing secret, within
// the application's bound of enabled webhooks.
func CreateWebhook(t Tx, in WebhookBody, secret string) (Webhook, error) {
	if err := admit(t, in.size); err != nil {
		return Webhook{}, err
	}
	if err := admitWebhook(t); err != nil {
		return Webhook{}, err
	}
	w := Webhook{
		Meta:             NewMeta(t.NewID(PrefixWebhook), t.App(), t.Now()),
		Application:      t.App(),
		Enabled:          true,
		EnabledEvents:    []any{},
		Authentication:   WebhookAuthentication{Type: "NONE"},
		SecretSigningKey: secret,
		Tags:             Tags{},
	}
	applyWebhookBody(&w, in)
	t.Webhooks().Put(&w)
	return w, nil
}

func applyWebhookBody(w *Webhook, in WebhookBody) {
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

// UpdateWebhook applies a webhook update (webhooks.update).
func UpdateWebhook(t Tx, id string, in WebhookBody) (Webhook, error) {
	w, err := t.Webhooks().Get(id)
	if err != nil {
		return Webhook{}, err
	}
	applyWebhookBody(&w, in)
	w.UpdatedAt = JSONTime(t.Now())
	t.Webhooks().Put(&w)
	return w, nil
}
