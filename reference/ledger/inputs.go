package ledger

import "time"

// Decoded request bodies. The validate package has already checked each body
// against its schema, so these only carry values.

// CardCreate is the body of payment_instruments.create.
type CardCreate struct {
	BodySize
	Type            string  `json:"type"`
	Name            string  `json:"name"`
	Number          string  `json:"number"`
	ExpirationMonth int     `json:"expiration_month"`
	ExpirationYear  int     `json:"expiration_year"`
	SecurityCode    string  `json:"security_code"`
	Identity        string  `json:"identity"`
	Address         Address `json:"address"`
	Tags            Tags    `json:"tags"`
}

// AuthorizationCreate is the body of authorizations.create.
type AuthorizationCreate struct {
	BodySize
	Source                 string       `json:"source"`
	MerchantIdentity       string       `json:"merchant_identity"`
	Merchant               string       `json:"merchant"`
	Amount                 int64        `json:"amount"`
	Currency               string       `json:"currency"`
	Processor              *string      `json:"processor"`
	Tags                   Tags         `json:"tags"`
	IdempotencyID          *string      `json:"idempotency_id"`
	AdditionalPurchaseData PurchaseData `json:"additional_purchase_data"`
}

// CaptureRequest is the body of authorizations.capture.
type CaptureRequest struct {
	BodySize
	CaptureAmount          int64        `json:"capture_amount"`
	Fee                    *int64       `json:"fee"`
	AdditionalPurchaseData PurchaseData `json:"additional_purchase_data"`
}

// TransferCreate is the body of transfers.create (a sale).
type TransferCreate struct {
	BodySize
	Source                 string       `json:"source"`
	Merchant               string       `json:"merchant"`
	Amount                 int64        `json:"amount"`
	Fee                    *int64       `json:"fee"`
	Currency               string       `json:"currency"`
	IdempotencyID          *string      `json:"idempotency_id"`
	Tags                   Tags         `json:"tags"`
	AdditionalPurchaseData PurchaseData `json:"additional_purchase_data"`
}

// MerchantUpdate is the body of merchants.update.
type MerchantUpdate struct {
	LevelTwoLevelThreeDataEnabled *bool `json:"level_two_level_three_data_enabled"`
	Tags                          Tags  `json:"tags"`
}

// ScheduleCreate is the body of subscription_schedules.create.
type ScheduleCreate struct {
	BodySize
	LineItemType            string         `json:"line_item_type"`
	Nickname                string         `json:"nickname"`
	SubscriptionType        string         `json:"subscription_type"`
	PeriodOffset            map[string]any `json:"period_offset"`
	FixedTimeIntervalOffset map[string]any `json:"fixed_time_interval_offset"`
	Tags                    Tags           `json:"tags"`
}

// AmountBody is the create and update body of a subscription amount; amount
// may sit inside fee_amount_data (the spec's table) or at the top level (its example).
type AmountBody struct {
	BodySize
	AmountType    string `json:"amount_type"`
	FeeAmountData *struct {
		Amount   *int64  `json:"amount"`
		Currency *string `json:"currency"`
		Label    *string `json:"label"`
	} `json:"fee_amount_data"`
	Amount   *int64  `json:"amount"`
	Nickname *string `json:"nickname"`
	Tags     Tags    `json:"tags"`
}

// EnrollmentBody is the body of subscription_enrollments.create and
// .update.
type EnrollmentBody struct {
	BodySize
	Merchant  string  `json:"merchant"`
	Nickname  *string `json:"nickname"`
	StartedAt *string `json:"started_at"`
	EndedAt   *string `json:"ended_at"`
	Tags      Tags    `json:"tags"`
}

// BalanceTransferCreate is the body of balance_transfers.create.
type BalanceTransferCreate struct {
	BodySize
	Amount              int64  `json:"amount"`
	Currency            string `json:"currency"`
	Description         string `json:"description"`
	Source              string `json:"source"`
	Destination         string `json:"destination"`
	ProcessorType       string `json:"processor_type"`
	ExternalReferenceID string `json:"external_reference_id"`
	Tags                Tags   `json:"tags"`
}

// FileCreate is the body of files.create.
type FileCreate struct {
	BodySize
	DisplayName string `json:"display_name"`
	LinkedTo    string `json:"linked_to"`
	LinkedType  string `json:"linked_type"`
	Type        string `json:"type"`
	Tags        Tags   `json:"tags"`
}

// ExternalLinkCreate is the body of external_links.create.
type ExternalLinkCreate struct {
	BodySize
	Type     string `json:"type"`
	Duration *int   `json:"duration"`
	Tags     Tags   `json:"tags"`
}

// WebhookBody is the body of webhooks.create and webhooks.update.
type WebhookBody struct {
	BodySize
	URL            *string          `json:"url"`
	Enabled        *bool            `json:"enabled"`
	EnabledEvents  []any            `json:"enabled_events"`
	Authentication *WebhookAuthBody `json:"authentication"`
	Tags           Tags             `json:"tags"`
}

// WebhookAuthBody is the request form of a webhook's authentication.
type WebhookAuthBody struct {
	Type  string `json:"type"`
	Basic *struct {
		Username string `json:"username"`
		Password string `json:"password"`
	} `json:"basic"`
	Bearer *struct {
		Token string `json:"token"`
	} `json:"bearer"`
}

// stored is the authentication a webhook keeps: the whole object replaces
// the previous one, credentials included.
func (b WebhookAuthBody) stored() WebhookAuthentication {
	a := WebhookAuthentication{Type: b.Type}
	if b.Basic != nil {
		a.Username, a.Password = b.Basic.Username, b.Basic.Password
	}
	if b.Bearer != nil {
		a.Token = b.Bearer.Token
	}
	return a
}

// parseTimestamp reads an RFC 3339 timestamp of a request body field.
func parseTimestamp(pointer string, v *string) (*time.Time, error) {
	if v == nil {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, *v)
	if err != nil {
		return nil, ErrInvalidField(pointer, "must be an RFC 3339 timestamp")
	}
	t = t.UTC()
	return &t, nil
}

// Tagged is an input body that carries tags (checked against Limits.Tags).
type Tagged interface{ TagList() Tags }

// TagList is the body's tags (Tagged).
func (in *CardCreate) TagList() Tags            { return in.Tags }
func (in *AuthorizationCreate) TagList() Tags   { return in.Tags }
func (in *TransferCreate) TagList() Tags        { return in.Tags }
func (in *MerchantUpdate) TagList() Tags        { return in.Tags }
func (in *ScheduleCreate) TagList() Tags        { return in.Tags }
func (in *AmountBody) TagList() Tags            { return in.Tags }
func (in *EnrollmentBody) TagList() Tags        { return in.Tags }
func (in *BalanceTransferCreate) TagList() Tags { return in.Tags }
func (in *FileCreate) TagList() Tags            { return in.Tags }
func (in *ExternalLinkCreate) TagList() Tags    { return in.Tags }
func (in *WebhookBody) TagList() Tags           { return in.Tags }

// BodySize is embedded in every input body: the size of the JSON it was
// decoded from, for the retention's memory estimate.
type BodySize struct{ size int }

// SetSize records the size of the JSON the body was decoded from.
func (b *BodySize) SetSize(n int) { b.size = n }

// Sized is an input body that records its size.
type Sized interface{ SetSize(n int) }
