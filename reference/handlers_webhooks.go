package reference

// Handlers of webhooks.

// signingKeyBytes is the size of a signing secret (64 hex characters).
const signingKeyBytes = 32

func (s *Server) createWebhook(rq *request) (any, error) {
	var in webhookBody
	if err := s.decodeWebhook(rq, &in); err != nil {
		return nil, err
	}
	w, err := s.st.createWebhook(rq.user.app, in, newSecret(signingKeyBytes), rq.now)
	if err != nil {
		return nil, err
	}
	s.publish(rq.base, rq.user.app, "webhook", "created", viewWebhookItem(rq.base, w))
	return viewWebhook(rq.base, w), nil
}

func (s *Server) updateWebhook(rq *request) (any, error) {
	var in webhookBody
	if err := s.decodeWebhook(rq, &in); err != nil {
		return nil, err
	}
	w, err := s.st.updateWebhook(rq.user.app, rq.r.PathValue("id"), in, rq.now)
	if err != nil {
		return nil, err
	}
	s.publish(rq.base, rq.user.app, "webhook", "updated", viewWebhookItem(rq.base, w))
	return viewWebhook(rq.base, w), nil
}

// decodeWebhook decodes a webhook body and applies the address policy to
// its url: a refused target is 422 INVALID_FIELD at /url.
func (s *Server) decodeWebhook(rq *request, in *webhookBody) error {
	if err := rq.decode(in); err != nil {
		return err
	}
	if in.URL != nil {
		if err := s.policy.checkURL(*in.URL); err != nil {
			return errInvalidField("/url", "%s", err.Error())
		}
	}
	return nil
}

func (s *Server) listWebhooks(rq *request) (any, error) {
	q, err := parseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	items, total := listCopy(s.st, func() *series[*webhook] { return &s.st.appOf(rq.user.app).webhooks }, q)
	return newList(rq, "webhooks", q, mapViews(rq.base, items, viewWebhookItem), total), nil
}

func (s *Server) getWebhook(rq *request) (any, error) {
	w, err := getCopy(s.st, s.st.webhooks, rq.user.app, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewWebhook(rq.base, w), nil
}
