package faults

import (
	"net/http"

	"github.com/conform-kit/conform/validate"
)

// Variants whose choice lies where the spec shows nothing at all: the
// payloads of the file endpoints (their bounds and their field names) and
// the fields of a webhook beyond §2.10's. An explorer that took the
// reference's choices there for the spec's would FAIL them.

// ExploreVariants are conformant variants whose choice no fixed scenario
// reaches (the suite passes them without a WARN): only generated requests
// do, so they prove the explorer, not the suite. They compose with each
// other and with Combined, nearest the reference (ExploreCombined).
func ExploreVariants() []Variant {
	return append([]Variant{
		{
			Name: "both-merchant-names", Tags: "@authorizations",
			Choice:  "an authorization naming its merchant both by merchant_identity and by merchant is taken, by merchant_identity",
			Profile: `{"request_rules": "unchecked"}`,
			build:   parts(wrapOnly(takingBothMerchantNames)),
		},
		{
			Name: "link-duration-1440", Tags: "@files", Choice: "an external link lasts at most 1440 minutes (a day), a longer duration is refused 422 INVALID_FIELD",
			Profile: `{"file_payloads": "unchecked"}`,
			build:   parts(wrapOnly(linkDurationDay)),
		},
		{
			Name: "webhook-no-tags", Tags: "@webhooks", Choice: "webhooks show no tags: tags sent on a create or update are taken and never shown",
			Profile: `{"resource_values": "unchecked"}`,
			build:   parts(wrapOnly(webhookNoTags)),
		},
		{
			Name: "file-payloads-plain", Tags: "@files", Choice: "files and external links show other payloads: no tags or linked_to/linked_type on a file, no duration or tags on an external link",
			Profile: `{"file_payloads": "unchecked"}`,
			build:   parts(wrapOnly(plainFilePayloads)),
		},
		{
			Name: "list-ties-by-id", Tags: "@lists", Choice: "an explicit sort's ties are broken by id, descending: the server appends id,desc to the sort values it is sent, and its links carry it (§2.12 states the default order's tie-break only)",
			Profile: `{}`,
			build:   parts(wrapOnly(listTiesByID)),
		},
	}, questionVariants()...)
}

// dayMinutes is the variant's longest external link.
const dayMinutes = 1440

// linkDurationDay refuses an external link create whose duration is over a day.
func linkDurationDay(next http.Handler, _ faultDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if matchAny(r, "files.external_links.create") {
			if d, ok := numberOf(peekJSON(r)["duration"]); ok && d > dayMinutes {
				validate.WriteEnvelope(w, r, http.StatusUnprocessableEntity, validate.ErrorItem{
					Code: "INVALID_FIELD", Message: "duration must be at most 1440 minutes", Field: "duration"})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// webhookOps are the operations whose answers are webhooks.
var webhookOps = []string{"webhooks.create", "webhooks.update", "webhooks.get", "webhooks.list"}

// webhookNoTags drops tags from every webhook answer.
func webhookNoTags(next http.Handler, d faultDeps) http.Handler {
	return rewriteResponse(func(x *faultExchange) bool {
		changed := false
		eachResource(x.out, func(m map[string]any) {
			if _, ok := m["tags"]; ok {
				delete(m, "tags")
				changed = true
			}
		})
		return changed
	}, webhookOps...)(next, d)
}

// plainFilePayloads rewrites file and external link answers to the
// variant's payloads.
func plainFilePayloads(next http.Handler, d faultDeps) http.Handler {
	return rewriteResponse(func(x *faultExchange) bool {
		changed := false
		eachResource(x.out, func(m map[string]any) {
			id := stringAt(m, "id")
			switch {
			case len(id) > 5 && id[:5] == "FILE_":
				for _, k := range []string{"tags", "linked_to", "linked_type"} {
					if _, ok := m[k]; ok {
						delete(m, k)
						changed = true
					}
				}
			case len(id) > 3 && id[:3] == "EL_":
				for _, k := range []string{"duration", "tags"} {
					if _, ok := m[k]; ok {
						delete(m, k)
						changed = true
					}
				}
			}
		})
		return changed
	}, fileOps...)(next, d)
}

// fileOps are the operations whose answers are files or external links.
var fileOps = []string{"files.create", "files.list", "files.get", "files.upload",
	"files.external_links.create", "files.external_links.list", "files.external_links.get"}

// ExploreCombined names the explore variants and the Combined ones served
// as one server (ServeVariants), the explore variants nearest the reference.
func ExploreCombined() []string {
	var out []string
	for _, v := range ExploreVariants() {
		out = append(out, v.Name)
	}
	return append(out, Combined()...)
}
