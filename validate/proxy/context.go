package proxy

import (
	"context"
	"net/http"
)

func contextWith(r *http.Request, ex *exchange) context.Context {
	return context.WithValue(r.Context(), exchangeKey{}, ex)
}
