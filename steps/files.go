package steps

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/cucumber/godog"
)

// uploadContent is the document the file scenarios upload.
const uploadContent = "%PDF-1.4\nconform underwriting document\n%%EOF\n"

// fileSteps is the vocabulary of files.feature: files, uploads, downloads and upload links.
func fileSteps() []stepDef {
	return []stepDef{
		step(`a file named "([^"]*)"`, func(s *scenario) any { return s.aFile }),
		step(`I create a file named "([^"]*)"`, func(s *scenario) any { return s.createFile }),
		step(`I create a file without a display name`, func(s *scenario) any { return s.createFileNoName }),
		step(`I upload a document to the file`, func(s *scenario) any { return s.uploadFile }),
		step(`I upload a document to a file that does not exist`, func(s *scenario) any { return s.uploadMissingFile }),
		step(`I fetch the file`, func(s *scenario) any { return s.fetchFile }),
		step(`I fetch the file with GET`, func(s *scenario) any { return s.fetchFileGET }),
		step(`I fetch a file that does not exist`, func(s *scenario) any { return s.fetchMissingFile }),
		step(`I list the files`, func(s *scenario) any { return s.listFiles }),
		step(`I list the files with "([^"]*)"`, func(s *scenario) any { return s.listFilesQuery }),
		step(`I download the file`, func(s *scenario) any { return s.downloadFile }),
		step(`the download is the uploaded document`, func(s *scenario) any { return s.downloadMatches }),
		step(`I create an upload link for the file`, func(s *scenario) any { return s.createLink }),
		step(`I create an upload link for a file that does not exist`, func(s *scenario) any { return s.createLinkMissing }),
		step(`I fetch the upload link`, func(s *scenario) any { return s.fetchLink }),
		step(`I fetch an upload link that does not exist`, func(s *scenario) any { return s.fetchMissingLink }),
		step(`I list the upload links of the file`, func(s *scenario) any { return s.listLinks }),
		step(`I list the upload links of the file with "([^"]*)"`, func(s *scenario) any { return s.listLinksQuery }),
		step(`I upload a document through the upload link`, func(s *scenario) any { return s.uploadThroughLink }),
		step(`I upload a document through an upload link that does not exist`, func(s *scenario) any { return s.uploadThroughMissingLink }),
		step(`the file's review ends in "([^"]*)"`, func(s *scenario) any { return s.reviewEndsIn }),
		step(`the file's review ends in a status other than "([^"]*)"`, func(s *scenario) any { return s.reviewEndsNotIn }),
	}
}

func (s *scenario) fileBody(name string) (map[string]any, error) {
	name = s.expand(name)
	merchant, err := s.id("merchant")
	if err != nil {
		return nil, err
	}
	return map[string]any{"display_name": name, "linked_to": merchant, "linked_type": "MERCHANT", "type": "OTHER", "tags": s.runTags()}, nil
}

func (s *scenario) aFile(ctx context.Context, name string) error {
	body, err := s.fileBody(name)
	if err != nil {
		return err
	}
	return s.given(ctx, "file", "POST", "/files", body)
}

func (s *scenario) createFile(ctx context.Context, name string) error {
	body, err := s.fileBody(name)
	if err != nil {
		return err
	}
	_, err = s.create(ctx, "file", "POST", "/files", body)
	return err
}

func (s *scenario) createFileNoName(ctx context.Context) error {
	body, err := s.fileBody("x")
	if err != nil {
		return err
	}
	delete(body, "display_name")
	_, err = s.send(ctx, "POST", "/files", body, s.user)
	return err
}

func (s *scenario) fileID() (string, error) { return s.id("file") }

func (s *scenario) uploadFile(ctx context.Context) error {
	id, err := s.fileID()
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "POST", "/files/"+id+"/upload", &filePart{name: "document.pdf", data: []byte(uploadContent)}, s.user)
	return err
}

func (s *scenario) uploadMissingFile(ctx context.Context) error {
	_, err := s.send(ctx, "POST", "/files/"+placeholderID("file")+"/upload", &filePart{name: "document.pdf", data: []byte(uploadContent)}, s.user)
	return err
}

func (s *scenario) fetchFile(ctx context.Context) error {
	id, err := s.fileID()
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "POST", "/files/"+id, nil, s.user)
	return err
}

// fetchFileGET fetches the file with GET, a method §4.8 does not name
// (it names POST /files/:FILE_ID:): asked only of a target whose profile
// lists it (also_methods), else the scenario is skipped naming the key.
func (s *scenario) fetchFileGET(ctx context.Context) error {
	if !slices.Contains(s.suite.profile.AlsoMethods["files.get"], http.MethodGet) {
		return &skipDeclared{key: keyAlsoMethods, value: "without GET for files.get (§4.8 names POST)"}
	}
	return s.fetch(ctx, "file", "/files")
}

func (s *scenario) fetchMissingFile(ctx context.Context) error {
	_, err := s.send(ctx, "POST", "/files/"+placeholderID("file"), nil, s.user)
	return err
}

func (s *scenario) listFiles(ctx context.Context) error {
	_, err := s.send(ctx, "GET", withQuery("/files", url.Values{"limit": {"100"}}), nil, s.user)
	return err
}

// listFilesQuery lists the files with a raw query ("offset=2&limit=2"), or
// with none when query is empty.
func (s *scenario) listFilesQuery(ctx context.Context, query string) error {
	_, err := s.send(ctx, "GET", withRawQuery("/files", query), nil, s.user)
	return err
}

func (s *scenario) downloadFile(ctx context.Context) error {
	id, err := s.fileID()
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "POST", "/files/"+id+"/download", nil, s.user)
	return err
}

func (s *scenario) downloadMatches() error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	if !bytes.Equal(ex.body, []byte(uploadContent)) {
		return s.fail(ex, "downloaded %d bytes, want the %d bytes uploaded", len(ex.body), len(uploadContent))
	}
	return nil
}

func (s *scenario) postLink(ctx context.Context, file string) (*exchange, error) {
	return s.create(ctx, "external link", "POST", "/files/"+file+"/external_links", map[string]any{"type": "UPLOAD", "duration": 60, "tags": s.runTags()})
}

func (s *scenario) createLink(ctx context.Context) error {
	id, err := s.fileID()
	if err != nil {
		return err
	}
	_, err = s.postLink(ctx, id)
	return err
}

func (s *scenario) createLinkMissing(ctx context.Context) error {
	_, err := s.postLink(ctx, placeholderID("file"))
	return err
}

func (s *scenario) fetchLink(ctx context.Context) error {
	id, err := s.fileID()
	if err != nil {
		return err
	}
	return s.fetch(ctx, "external link", "/files/"+id+"/external_links")
}

func (s *scenario) fetchMissingLink(ctx context.Context) error {
	id, err := s.fileID()
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "GET", "/files/"+id+"/external_links/"+placeholderID("external link"), nil, s.user)
	return err
}

func (s *scenario) listLinks(ctx context.Context) error { return s.listLinksQuery(ctx, "") }

func (s *scenario) listLinksQuery(ctx context.Context, query string) error {
	id, err := s.fileID()
	if err != nil {
		return err
	}
	path := "/files/" + id + "/external_links"
	if query != "" {
		path += "?" + query
	}
	_, err = s.send(ctx, "GET", path, nil, s.user)
	return err
}

// externalUploadOp is the operation of an upload through a link's url.
const externalUploadOp = "files.external_upload"

// uploadThroughLink PUTs the document to the link's url, without credentials:
// the URL is the credential.
func (s *scenario) uploadThroughLink(ctx context.Context) error {
	link, ok := lookupString(s.docs["external link"], "url")
	if !ok || !isAbsoluteURL(link) {
		return s.judge(fmt.Errorf("the upload link has no absolute url: %s", render(s.docs["external link"])))
	}
	return s.putToLink(ctx, link)
}

// uploadThroughMissingLink PUTs to the reference's link path for an unknown link (extension).
func (s *scenario) uploadThroughMissingLink(ctx context.Context) error {
	return s.putToLink(ctx, s.suite.cfg.Target+"/external_links/"+placeholderID("external link")+"/upload")
}

// putToLink PUTs the document to a link's url: the extension
// files.external_upload, skipped when the profile declares it not offered.
func (s *scenario) putToLink(ctx context.Context, link string) error {
	if !s.offers(externalUploadOp) {
		return errNotOffered(externalUploadOp)
	}
	ex := &exchange{method: "PUT", path: link, url: link, auth: authNone, reqType: "application/pdf", reqBody: []byte(uploadContent)}
	resp, err := s.suite.client.R().SetContext(ctx).SetHeader("Content-Type", ex.reqType).SetBody(ex.reqBody).Put(link)
	if err != nil {
		return &kitError{fmt.Errorf("PUT %s: %w", link, err)}
	}
	ex.status, ex.header, ex.body = resp.StatusCode(), resp.Header(), resp.Body()
	ex.doc = decodeJSON(ex.body)
	if u, err := url.Parse(link); err == nil {
		if op, _, err := s.suite.v.Lookup("PUT", u.Path); err == nil {
			ex.op, ex.hasOp = op, true
			s.suite.results.cover(op.ID, ex.status)
		}
	}
	s.last = ex
	return nil
}

// reviewEndsIn polls the file until its status leaves REQUIRES_UPLOAD and PENDING, then compares.
func (s *scenario) reviewEndsIn(ctx context.Context, want string) error {
	status, err := s.awaitReview(ctx)
	if err != nil {
		return err
	}
	if status != want {
		return s.fail(s.last, "the review ended in status %q, want %q", status, want)
	}
	return nil
}

func (s *scenario) reviewEndsNotIn(ctx context.Context, unwanted string) error {
	status, err := s.awaitReview(ctx)
	if err != nil {
		return err
	}
	if status == unwanted {
		err := s.failf(s.last, "the review ended in status %q, want a reject code", status)
		if s.profileKey == "file_reject_trigger" {
			// The name held the declared trigger and the review passed it: the
			// target observed has no such trigger.
			if err := s.assume(s.profileKey, "a reject code for "+strconv.Quote(s.suite.profile.FileRejectTrigger), status, map[string]any{"file_reject_trigger": ""}, err); err != nil {
				return err
			}
			return fmt.Errorf("%w: the rest of the scenario checks the rejected file", godog.ErrSkip)
		}
		return s.judge(err)
	}
	return nil
}

func (s *scenario) awaitReview(ctx context.Context) (string, error) {
	var status string
	err := s.poll(ctx, "the end of the file's review", func() error {
		if err := s.fetchFile(ctx); err != nil {
			return err
		}
		if err := s.checkSuccess(s.last); err != nil {
			return err
		}
		status, _ = lookupString(s.last.doc, "status")
		if status == "REQUIRES_UPLOAD" || status == "PENDING" {
			return errNotYet
		}
		return nil
	})
	return status, err
}
