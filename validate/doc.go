// Package validate checks Payments Service API documents against the contract
// held in package schemas: one JSON Schema (draft 2020-12) per resource and
// per request body, and the operations table.
//
// New compiles every embedded schema once; the resulting *Validator is
// immutable and safe for concurrent use. Validate, Request and Resource read
// the document once, as bytes, without decoding it (numbers are judged on
// their text, so amounts in cents are checked exactly), and return either nil,
// an error wrapping ErrMalformed (the body is not JSON, carries trailing data,
// or is not a JSON object), or an *Error that lists the violations with their
// JSON pointers and rules (at most MaxViolations; Omitted counts the rest;
// a document nested deeper than MaxDepth is one RuleDepth violation):
//
//	v, err := validate.New()
//	if err != nil {
//		return err
//	}
//	err = v.Request("transfers.create", body)
//	var verr *validate.Error
//	if errors.As(err, &verr) {
//		for _, viol := range verr.Violations {
//			log.Printf("%s: %s (%s)", viol.Pointer, viol.Message, viol.Rule)
//		}
//	}
//
// The business rules JSON Schema cannot express (capture amount, fee,
// Level 2/3 enablement, subscription amount updates, tax exemption) are plain
// functions returning the same *Error; RequestBody judges a body by its
// schema and then those that need only the body (BodyRules; which operation
// applies which is data, BodyRuleTable), the verdict Middleware gives it by
// default. Shape publishes the tree a schema compiles to, for programs that
// read the contract. Response checks a response (status,
// content type, body or error envelope) and HTTPRequest a whole request
// (route, path ids, Accept, Content-Type, list parameters, body).
// WriteEnvelope and WriteError render errors in the API's error envelope, and
// Middleware puts the request checks, and optionally the response checks, in
// front of any net/http handler. The package never prints.
package validate
