package reference

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
)

func (h *harness) newFile(name string) string {
	h.t.Helper()
	return h.expect(h.call(h.platform(), "POST", "/files", map[string]any{
		"display_name": name, "linked_to": h.fx.Fixtures.Merchant, "type": "PASSPORT",
	}), 200, "file").str(h.t, "id")
}

func (h *harness) fileStatus(id string) string {
	h.t.Helper()
	return h.call(h.platform(), "GET", "/files/"+id, nil).str(h.t, "status")
}

func TestFileReview(t *testing.T) {
	h := newHarness(t)
	tests := []struct{ name, final string }{
		{"Passport scan", ledger.FileUploaded},
		{"please reject me", ledger.FileInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.final, func(t *testing.T) {
			id := h.newFile(tc.name)
			if got := h.fileStatus(id); got != ledger.FileRequiresUpload {
				t.Fatalf("new file status %s", got)
			}
			h.expect(h.call(h.platform(), "GET", "/files/"+id+"/download", nil), 422, "")
			ct, body := multipartBody(t, "scan.png", "image/png", []byte("png bytes"))
			r := h.expect(h.call(h.platform(), "POST", "/files/"+id+"/upload", body, "Content-Type", ct), 200, "file").json(t)
			if r["status"] != ledger.FilePending || r["extension"] != "png" {
				t.Errorf("after upload: status %v extension %v", r["status"], r["extension"])
			}
			eventually(t, "review to end", func() bool { return h.fileStatus(id) == tc.final })
			h.expect(h.call(h.platform(), "POST", "/files/"+id+"/upload", body, "Content-Type", ct), 422, "")
		})
	}
}

func TestExternalLinks(t *testing.T) {
	h := newHarness(t)
	id := h.newFile("Statement")
	link := func(typ string, duration int) map[string]any {
		t.Helper()
		return h.expect(h.call(h.platform(), "POST", "/files/"+id+"/external_links", map[string]any{"type": typ, "duration": duration}), 200, "external_link").json(t)
	}
	put := func(url string, status int) response {
		t.Helper()
		path := strings.TrimPrefix(url, testBase)
		return h.expect(h.call(ledger.Credential{}, "PUT", path, []byte("statement bytes"), "Content-Type", "application/pdf"), status, "file")
	}
	expiring := link("UPLOAD", 1)
	download := link("DOWNLOAD", 10)
	good := link("UPLOAD", 60)
	if !strings.HasPrefix(good["url"].(string), testBase+"/external_links/") {
		t.Errorf("link url %v is not absolute under the base URL", good["url"])
	}
	put(download["url"].(string), 422)
	h.clock.Advance(2 * time.Minute)
	put(expiring["url"].(string), 422)
	got := h.expect(h.call(h.platform(), "GET", "/files/"+id+"/external_links/"+expiring["id"].(string), nil), 200, "external_link").json(t)
	if got["expired"] != true {
		t.Error("expired link not reported expired")
	}
	put(testBase+"/external_links/EL_0000000000000000000000/upload", 404)
	if r := put(good["url"].(string), 200).json(t); r["status"] != ledger.FilePending || r["extension"] != "pdf" {
		t.Errorf("after external upload: %v", r)
	}
	if data := h.call(h.platform(), "POST", "/files/"+id+"/download", nil).body; !bytes.Equal(data, []byte("statement bytes")) {
		t.Errorf("download %q", data)
	}
	list := h.expect(h.call(h.platform(), "GET", "/files/"+id+"/external_links", nil), 200, "external_link_list").json(t)
	if n := list["page"].(map[string]any)["count"]; n != float64(3) {
		t.Errorf("link count %v, want 3", n)
	}
	h.expect(h.call(h.other(), "GET", "/files/"+id+"/external_links", nil), 404, "")
}

func TestEvidenceUpload(t *testing.T) {
	h := newHarness(t)
	path := "/disputes/" + h.fx.Fixtures.Dispute + "/evidence"
	tests := []struct {
		name, file, contentType string
		data                    []byte
		status                  int
	}{
		{"pdf", "proof.pdf", "application/pdf", []byte("%PDF"), 201},
		{"type from extension", "proof.png", "application/octet-stream", []byte("png"), 201},
		{"type not allowed", "tool.exe", "application/x-msdownload", []byte("MZ"), 422},
		{"empty", "empty.pdf", "application/pdf", nil, 422},
		{"over 10 MiB", "big.pdf", "application/pdf", bytes.Repeat([]byte("a"), maxUploadBytes+1), 413},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ct, body := multipartBody(t, tc.file, tc.contentType, tc.data)
			r := h.expect(h.call(h.platform(), "POST", path, body, "Content-Type", ct), tc.status, "evidence")
			if tc.status != 201 {
				return
			}
			tags := r.json(t)["tags"].(map[string]any)
			if tags["file-name"] != tc.file || tags["file-extension"] == "" || tags["content-type"] == "" {
				t.Errorf("evidence tags %v", tags)
			}
		})
	}
	t.Run("no file part", func(t *testing.T) {
		r := h.call(h.platform(), "POST", path, "--x--\r\n", "Content-Type", "multipart/form-data; boundary=x")
		h.expect(r, 422, "")
	})
	list := h.expect(h.call(h.platform(), "GET", path, nil), 200, "evidence_list").json(t)
	if n := list["page"].(map[string]any)["count"]; n != float64(3) {
		t.Errorf("evidence count %v, want 3 (seeded + 2)", n)
	}
}
