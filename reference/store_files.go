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
}

func (st *store) createEvidence(app, disputeID string, up upload, now time.Time) (evidence, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.admit(app, now, len(up.name)+len(up.contentType)); err != nil {
		return evidence{}, err
	}
	if _, err := lookup(st.disputes, app, disputeID); err != nil {
		return evidence{}, err
	}
	e := &evidence{
		meta:    newMeta(st.newID(prefixEvidence), app, now),
		Dispute: disputeID,
		State:   "SUCCEEDED",
		Tags: tags{
			"file-name":      up.name,
			"content-type":   up.contentType,
			"file-extension": up.extension,
		},
	}
	st.evidence[e.ID] = e
	ser := st.evidenceByDispute[disputeID]
	if ser == nil {
		ser = &series[*evidence]{}
		st.evidenceByDispute[disputeID] = ser
	}
	ser.add(e)
	st.keep(app, now, len(up.name)+len(up.contentType), func() {
		delete(st.evidence, e.ID)
		st.evidenceByDispute[disputeID].remove(e)
	})
	return *e, nil
}

func (st *store) getEvidence(app, disputeID, id string) (evidence, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	e, err := lookup(st.evidence, app, id)
	if err != nil || e.Dispute != disputeID {
		return evidence{}, errNotFound(id)
	}
	return *e, nil
}

// disputeExists checks that the dispute exists for app before a child operation.
func (st *store) disputeExists(app, id string) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, err := lookup(st.disputes, app, id)
	return err
}

func (st *store) createFile(u user, in fileCreate, now time.Time) (file, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.admit(u.app, now, in.size); err != nil {
		return file{}, err
	}
	if _, err := lookup(st.merchants, u.app, in.LinkedTo); err != nil {
		return file{}, errInvalidField("/linked_to", "merchant %s was not found", in.LinkedTo)
	}
	f := &file{
		meta:          newMeta(st.newID(prefixFile), u.app, now),
		ApplicationID: u.app,
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
	st.files[f.ID] = f
	st.apps[u.app].files.add(f)
	st.linksByFile[f.ID] = &series[*externalLink]{}
	st.keep(u.app, now, in.size, func() { st.dropFile(f) })
	return *f, nil
}

// dropFile removes a file with its content and its external links. Callers
// hold the lock.
func (st *store) dropFile(f *file) {
	delete(st.files, f.ID)
	a := st.apps[f.app]
	a.files.remove(f)
	a.uploadBytes -= int64(len(f.content))
	if links := st.linksByFile[f.ID]; links != nil {
		for _, l := range links.items {
			delete(st.links, l.ID)
		}
	}
	delete(st.linksByFile, f.ID)
}

// uploadFile stores the content of a file awaiting it and moves it to PENDING.
func (st *store) uploadFile(app, id string, up upload, now time.Time) (file, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f, err := lookup(st.files, app, id)
	if err != nil {
		return file{}, err
	}
	return st.putContent(f, up, now)
}

func (st *store) putContent(f *file, up upload, now time.Time) (file, error) {
	if f.Status != fileRequiresUpload {
		return file{}, errUnprocessable("file %s is %s; content can be uploaded only once", f.ID, f.Status)
	}
	a := st.apps[f.app]
	if rt := st.retention; rt != nil && rt.lim.UploadBytes > 0 && a.uploadBytes+int64(len(up.data)) > rt.lim.UploadBytes {
		return file{}, errQuota("this application holds %d bytes of file content; %d more would pass its %d-byte quota (files expire %s after creation)",
			a.uploadBytes, len(up.data), rt.lim.UploadBytes, rt.lim.MaxAge)
	}
	a.uploadBytes += int64(len(up.data))
	f.content, f.contentType = up.data, up.contentType
	if up.extension != "" {
		ext := up.extension
		f.Extension = &ext
	}
	f.Status = filePending
	f.UpdatedAt = jsonTime(now)
	a.files.touch(f)
	return *f, nil
}

// reviewFile ends the simulated review of a PENDING file: INVALID when its
// display name contains "reject", UPLOADED otherwise.
func (st *store) reviewFile(id string, now time.Time) (file, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f, ok := st.files[id]
	if !ok || f.Status != filePending {
		return file{}, false
	}
	f.Status = fileUploaded
	if strings.Contains(strings.ToLower(f.DisplayName), "reject") {
		f.Status = fileInvalid
	}
	f.UpdatedAt = jsonTime(now)
	st.apps[f.app].files.touch(f)
	return *f, true
}

// download returns the uploaded bytes of a file.
func (st *store) download(app, id string) (file, []byte, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f, err := lookup(st.files, app, id)
	if err != nil {
		return file{}, nil, err
	}
	if f.content == nil {
		return file{}, nil, errUnprocessable("file %s has no uploaded content", id)
	}
	return *f, f.content, nil
}

// createLink adds an external link to a file; url builds the link's URL from its id.
func (st *store) createLink(u user, fileID string, in externalLinkCreate, url func(id string) string, now time.Time) (externalLink, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.admit(u.app, now, in.size); err != nil {
		return externalLink{}, err
	}
	if _, err := lookup(st.files, u.app, fileID); err != nil {
		return externalLink{}, err
	}
	duration := defaultLinkDuration
	if in.Duration != nil {
		duration = *in.Duration
	}
	l := &externalLink{
		meta:      newMeta(st.newID(prefixLink), u.app, now),
		FileID:    fileID,
		Type:      in.Type,
		Duration:  duration,
		ExpiresAt: jsonTime(now.Add(time.Duration(duration) * time.Minute)),
		UserID:    u.id,
		Tags:      orEmpty(in.Tags),
	}
	l.URL = url(l.ID)
	st.links[l.ID] = l
	st.linksByFile[fileID].add(l)
	st.keep(u.app, now, in.size, func() {
		delete(st.links, l.ID)
		st.linksByFile[fileID].remove(l)
	})
	return *l, nil
}

func (st *store) getLink(app, fileID, id string, now time.Time) (externalLink, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	l, err := lookup(st.links, app, id)
	if err != nil || l.FileID != fileID {
		return externalLink{}, errNotFound(id)
	}
	out := *l
	out.Expired = !now.Before(time.Time(l.ExpiresAt))
	return out, nil
}

// externalUpload stores content sent to an UPLOAD link's URL; the link id is
// the credential, so the application is the link's.
func (st *store) externalUpload(linkID string, up upload, now time.Time) (file, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	l, err := st.uploadLink(linkID, now)
	if err != nil {
		return file{}, err
	}
	return st.putContent(st.files[l.FileID], up, now)
}

// checkUploadLink reports whether linkID is an UPLOAD link still open at
// now, so an upload to a wrong URL is refused before its body is read.
func (st *store) checkUploadLink(linkID string, now time.Time, declared int64) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	l, err := st.uploadLink(linkID, now)
	if err != nil {
		return err
	}
	return st.uploadFits(l.app, declared)
}

// checkUpload is files.upload's check before its body is read: the file is
// the application's and content of the declared size would fit its quota.
func (st *store) checkUpload(app, fileID string, declared int64) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, err := lookup(st.files, app, fileID); err != nil {
		return err
	}
	return st.uploadFits(app, declared)
}

// uploadFits refuses, before a byte is read, content of at least n bytes
// that would pass the application's upload quota. Callers hold the lock.
func (st *store) uploadFits(app string, n int64) error {
	rt, a := st.retention, st.apps[app]
	if rt == nil || a == nil || rt.lim.UploadBytes <= 0 || n <= 0 || a.uploadBytes+n <= rt.lim.UploadBytes {
		return nil
	}
	return errQuota("this application holds %d bytes of file content; the %d declared would pass its %d-byte quota (files expire %s after creation)",
		a.uploadBytes, n, rt.lim.UploadBytes, rt.lim.MaxAge)
}

// uploadLink is the open UPLOAD link linkID; callers hold the lock.
func (st *store) uploadLink(linkID string, now time.Time) (*externalLink, error) {
	l, ok := st.links[linkID]
	switch {
	case !ok:
		return nil, errNotFound(linkID)
	case l.Type != "UPLOAD":
		return nil, errUnprocessable("external link %s is a %s link, not an UPLOAD link", linkID, l.Type)
	case !now.Before(time.Time(l.ExpiresAt)):
		return nil, errUnprocessable("external link %s has expired", linkID)
	}
	return l, nil
}

func (st *store) createWebhook(app string, in webhookBody, secret string, now time.Time) (webhook, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.admit(app, now, in.size); err != nil {
		return webhook{}, err
	}
	if rt := st.retention; rt != nil && rt.lim.Webhooks > 0 && st.enabledCount(app) >= rt.lim.Webhooks {
		return webhook{}, errQuota("this application has %d enabled webhooks, the most it may: disable one, or wait for it to expire (%s after creation)", rt.lim.Webhooks, rt.lim.MaxAge)
	}
	w := &webhook{
		meta:             newMeta(st.newID(prefixWebhook), app, now),
		Application:      app,
		Enabled:          true,
		EnabledEvents:    []any{},
		Authentication:   webhookAuthentication{Type: "NONE"},
		SecretSigningKey: secret,
		Tags:             tags{},
	}
	applyWebhookBody(w, in)
	st.webhooks[w.ID] = w
	st.apps[app].webhooks.add(w)
	st.keep(app, now, in.size, func() {
		delete(st.webhooks, w.ID)
		st.apps[app].webhooks.remove(w)
	})
	return *w, nil
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

func (st *store) updateWebhook(app, id string, in webhookBody, now time.Time) (webhook, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	w, err := lookup(st.webhooks, app, id)
	if err != nil {
		return webhook{}, err
	}
	applyWebhookBody(w, in)
	w.UpdatedAt = jsonTime(now)
	st.apps[w.app].webhooks.touch(w)
	return *w, nil
}

// enabledCount counts the application's enabled webhooks: the quota bounds
// the ones that receive deliveries; disabled ones (the suite disables each
// webhook it creates when its scenario ends) only age out with retention.
func (st *store) enabledCount(app string) int {
	n := 0
	for _, w := range st.appOf(app).webhooks.items {
		if w.Enabled {
			n++
		}
	}
	return n
}

// enabledWebhooks returns copies of the application's enabled webhooks.
func (st *store) enabledWebhooks(app string) []webhook {
	st.mu.Lock()
	defer st.mu.Unlock()
	a := st.apps[app]
	if a == nil {
		return nil
	}
	var out []webhook
	for _, w := range a.webhooks.items {
		if w.Enabled {
			out = append(out, *w)
		}
	}
	return out
}

// enabledWebhook returns a copy of webhook id of app if it is still enabled.
func (st *store) enabledWebhook(app, id string) (webhook, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	w, err := lookup(st.webhooks, app, id)
	if err != nil || !w.Enabled {
		return webhook{}, false
	}
	return *w, true
}
