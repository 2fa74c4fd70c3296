package reference

// Handlers of files and external links.

func (s *Server) createFile(rq *request) (any, error) {
	var in fileCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	f, err := s.st.createFile(rq.user, in, rq.now)
	if err != nil {
		return nil, err
	}
	v := viewFile(rq.base, f)
	s.publish(rq.base, rq.user.app, "file", "created", v)
	return v, nil
}

func (s *Server) listFiles(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	items, total := listCopy(s.st, func() *series[*file] { return &s.st.appOf(rq.user.app).files }, q)
	return newList(rq, "files", q, mapViews(rq.base, items, viewFile), total), nil
}

func (s *Server) getFile(rq *request) (any, error) {
	f, err := getCopy(s.st, s.st.files, rq.user.app, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewFile(rq.base, f), nil
}

func (s *Server) uploadFile(rq *request) (any, error) {
	app, id := rq.user.app, rq.r.PathValue("id")
	if _, err := getCopy(s.st, s.st.files, app, id); err != nil {
		return nil, err
	}
	up, err := readMultipartFile(rq.r, nil)
	if err != nil {
		return nil, err
	}
	f, err := s.st.uploadFile(app, id, up, rq.now)
	if err != nil {
		return nil, err
	}
	return s.uploaded(rq.base, app, f), nil
}

// uploaded announces a file that moved to PENDING and starts its review.
func (s *Server) uploaded(base, app string, f file) fileView {
	v := viewFile(base, f)
	s.publish(base, app, "file", "updated", v)
	s.startReview(base, app, f.ID)
	return v
}

func (s *Server) downloadFile(rq *request) (any, error) {
	f, data, err := s.st.download(rq.user.app, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return rawBody{contentType: f.contentType, data: data}, nil
}

func (s *Server) createExternalLink(rq *request) (any, error) {
	var in externalLinkCreate
	if err := rq.decode(&in); err != nil {
		return nil, err
	}
	url := func(id string) string { return rq.base + "/external_links/" + id + "/upload" }
	l, err := s.st.createLink(rq.user, rq.r.PathValue("id"), in, url, rq.now)
	if err != nil {
		return nil, err
	}
	v := viewExternalLink(rq.base, l)
	s.publish(rq.base, rq.user.app, "external_link", "created", v)
	return v, nil
}

func (s *Server) listExternalLinks(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	id := rq.r.PathValue("id")
	if _, err := getCopy(s.st, s.st.files, rq.user.app, id); err != nil {
		return nil, err
	}
	items, total := listCopy(s.st, func() *series[*externalLink] { return s.st.linksByFile[id] }, q)
	for i := range items {
		items[i].Expired = !rq.now.Before(items[i].ExpiresAt.time())
	}
	return newList(rq, "external_links", q, mapViews(rq.base, items, viewExternalLink), total), nil
}

func (s *Server) getExternalLink(rq *request) (any, error) {
	l, err := s.st.getLink(rq.user.app, rq.r.PathValue("file_id"), rq.r.PathValue("id"), rq.now)
	if err != nil {
		return nil, err
	}
	return viewExternalLink(rq.base, l), nil
}

// externalUpload is the PUT to an external link's URL: no credentials, the
// link id is the credential; the body is the file's bytes.
func (s *Server) externalUpload(rq *request) (any, error) {
	name := ""
	if _, params, err := mimeParams(rq.r.Header.Get("Content-Disposition")); err == nil {
		name = params["filename"]
	}
	up, err := describeUpload(name, rq.r.Header.Get("Content-Type"), rq.body, nil)
	if err != nil {
		return nil, err
	}
	f, err := s.st.externalUpload(rq.r.PathValue("id"), up, rq.now)
	if err != nil {
		return nil, err
	}
	return s.uploaded(rq.base, f.app, f), nil
}
