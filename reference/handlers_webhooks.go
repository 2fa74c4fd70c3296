package reference

import "github.com/conform-kit/conform/reference/ledger"

// Handlers of webhooks.

// signingKeyBytes is the size of a signing secret (64 hex characters).
const signingKeyBytes = 32

func (s *Server) createWebhook(rq *request) (any, error) {
	var in ledger.WebhookBody
	if err := s.decodeWebhook(rq, &in); err != nil {
		return nil, err
	}
	return s.changeWebhook(rq, "created", func(t ledger.Tx) (ledger.Webhook, error) {
		return ledger.CreateWebhook(t, in, ledger.NewSecret(signingKeyBytes))
	})
}

func (s *Server) updateWebhook(rq *request) (any, error) {
	var in ledger.WebhookBody
	if err := s.decodeWebhook(rq, &in); err != nil {
		return nil, err
	}
	return s.changeWebhook(rq, "updated", func(t ledger.Tx) (ledger.Webhook, error) {
		return ledger.UpdateWebhook(t, rq.r.PathValue("id"), in)
	})
}

// changeWebhook runs a webhook's create or update as one unit of work with
// its event, which carries the webhook without its signing secret.
func (s *Server) changeWebhook(rq *request, typ string, fn func(t ledger.Tx) (ledger.Webhook, error)) (any, error) {
	var w ledger.Webhook
	err := s.update(rq.r.Context(), rq.user.App, func(t ledger.Tx) error {
		var err error
		if w, err = fn(t); err != nil {
			return err
		}
		t.Outbox().Emit("webhook", typ, viewWebhookItem(rq.base, w))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return viewWebhook(rq.base, w), nil
}

// decodeWebhook decodes a webhook body and applies the address policy to
// its url: a refused target is 422 INVALID_FIELD at /url.
func (s *Server) decodeWebhook(rq *request, in *ledger.WebhookBody) error {
	if err := rq.decode(in); err != nil {
		return err
	}
	if in.URL != nil {
		if err := s.policy.checkURL(*in.URL); err != nil {
			return ledger.ErrInvalidField("/url", "%s", err.Error())
		}
	}
	return nil
}

func (s *Server) listWebhooks(rq *request) (any, error) {
	q, err := ledger.ParseListQuery(rq.r.URL.Query())
	if err != nil {
		return nil, err
	}
	items, total, err := listPage(s, rq, ledger.Tx.Webhooks, "", nil, q)
	if err != nil {
		return nil, err
	}
	return newList(rq, "webhooks", q, mapViews(rq.base, items, viewWebhookItem), total), nil
}

func (s *Server) getWebhook(rq *request) (any, error) {
	w, err := getOne(s, rq, ledger.Tx.Webhooks, rq.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return viewWebhook(rq.base, w), nil
}
