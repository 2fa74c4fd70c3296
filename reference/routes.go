package reference

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/validate"
)

// handlers maps every operation id of schemas/operations.json to its handler.
// routes registers each on the operation's method and path (and its
// also_methods), so paths and success statuses come from the table alone.
func (s *Server) handlers() map[string]handler {
	return map[string]handler{
		"authorizations.create":  s.createAuthorization,
		"authorizations.capture": s.captureAuthorization,
		"authorizations.get":     s.getAuthorization,

		"transfers.create": s.createTransfer,
		"transfers.get":    s.getTransfer,

		"payment_instruments.create": s.createPaymentInstrument,
		"payment_instruments.get":    s.getPaymentInstrument,

		"merchants.get":    s.getMerchant,
		"merchants.update": s.updateMerchant,

		"subscription_schedules.create":             s.createSchedule,
		"subscription_schedules.get":                s.getSchedule,
		"subscription_amounts.create":               s.createAmount,
		"subscription_amounts.get":                  s.getAmount,
		"subscription_amounts.update":               s.updateAmount,
		"subscription_enrollments.create":           s.createEnrollment,
		"subscription_enrollments.list_by_schedule": s.listEnrollmentsBySchedule,
		"subscription_enrollments.list":             s.listEnrollments,
		"subscription_enrollments.get":              s.getEnrollment,
		"subscription_enrollments.update":           s.updateEnrollment,
		"subscription_enrollments.delete":           s.deleteEnrollment,

		"disputes.list":                     s.listDisputes,
		"disputes.get":                      s.getDispute,
		"dispute_evidence.create":           s.createEvidence,
		"dispute_evidence.list":             s.listEvidence,
		"dispute_evidence.get":              s.getEvidence,
		"dispute_adjustment_transfers.list": s.listAdjustmentTransfers,

		"balance_transfers.create": s.createBalanceTransfer,
		"balance_transfers.list":   s.listBalanceTransfers,
		"balance_transfers.get":    s.getBalanceTransfer,

		"files.create":                s.createFile,
		"files.list":                  s.listFiles,
		"files.get":                   s.getFile,
		"files.upload":                s.uploadFile,
		"files.download":              s.downloadFile,
		"files.external_links.create": s.createExternalLink,
		"files.external_links.list":   s.listExternalLinks,
		"files.external_links.get":    s.getExternalLink,
		"files.external_upload":       s.externalUpload,

		"webhooks.create": s.createWebhook,
		"webhooks.list":   s.listWebhooks,
		"webhooks.get":    s.getWebhook,
		"webhooks.update": s.updateWebhook,
	}
}

// gates maps operation ids to the checks they run before reading a body.
func (s *Server) gates() map[string]gate {
	return map[string]gate{
		// The upload URL has no other credential than its link id: an unknown
		// or closed link is refused before a 10 MiB body is read.
		// Content the upload quota cannot take is refused before it is
		// read too (by its declared length; the quota is checked again on
		// the bytes read).
		"files.external_upload": func(rq *request) error {
			id := rq.r.PathValue("id")
			app, ok := s.units.LinkOwner(rq.r.Context(), id)
			if !ok {
				return ledger.ErrNotFound(id)
			}
			return s.view(rq.r.Context(), app, func(t ledger.Tx) error {
				if _, err := ledger.UploadLink(t, id, rq.now); err != nil {
					return err
				}
				return ledger.UploadFits(t, rq.r.ContentLength)
			})
		},
		"files.upload": func(rq *request) error {
			return s.view(rq.r.Context(), rq.user.App, func(t ledger.Tx) error {
				if _, err := t.Files().Get(rq.r.PathValue("id")); err != nil {
					return err
				}
				return ledger.UploadFits(t, rq.r.ContentLength-multipartSlack)
			})
		},
	}
}

// routes builds the mux from the operations table. Every operation must have
// a handler and every handler an operation. Requests no pattern matches fall
// to notRouted, which answers 404 or 405 in the error envelope.
func (s *Server) routes() (*http.ServeMux, error) {
	hs, gates := s.handlers(), s.gates()
	mux := http.NewServeMux()
	for _, op := range s.v.Operations() {
		h, ok := hs[op.ID]
		if !ok {
			return nil, fmt.Errorf("operation %s has no handler", op.ID)
		}
		delete(hs, op.ID)
		ep := s.endpoint(op, h, gates[op.ID])
		for _, m := range append([]string{op.Method}, op.AlsoMethods...) {
			mux.Handle(m+" "+op.Path, ep)
		}
	}
	for id := range hs {
		return nil, fmt.Errorf("handler %s has no operation in the table", id)
	}
	mux.HandleFunc("/", s.notRouted)
	return mux, nil
}

// notRouted answers requests matching no operation: 405 METHOD_NOT_ALLOWED
// for a known path, 404 NOT_FOUND otherwise.
func (s *Server) notRouted(w http.ResponseWriter, r *http.Request) {
	_, _, err := s.v.Lookup(r.Method, r.URL.Path)
	if errors.Is(err, validate.ErrMethodNotAllowed) {
		if allow := s.allowed(r.URL.Path); allow != "" {
			w.Header().Set("Allow", allow)
		}
		s.writeError(w, r, &ledger.DomainError{Kind: ledger.KindMethodNotAllowed, Message: r.Method + " is not allowed on " + r.URL.Path})
		return
	}
	s.writeError(w, r, &ledger.DomainError{Kind: ledger.KindNotFound, Message: r.URL.Path + " was not found"})
}

// allowed lists the methods the operations table serves on path.
func (s *Server) allowed(path string) string {
	var methods []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if _, _, err := s.v.Lookup(m, path); err == nil {
			methods = append(methods, m)
		}
	}
	return strings.Join(methods, ", ")
}
