@disputes @spec-4.6
Feature: Disputes, evidence and adjustment transfers
  Disputes (chargebacks) are listed and fetched; evidence is uploaded as multipart form data and
  listed; each dispute lists its adjustment transfers. In the sandbox a sale of a trigger amount (888888 cents) opens a dispute.

  Background:
    Given I am the platform user

  @sandbox @spec-2.7 @assumed @profile-dispute_trigger_amount
  Scenario: a sale of the sandbox's dispute amount opens a dispute on that sale with adjustment transfers
    Given a card for the buyer
    When I create a sale of the sandbox's dispute amount
    Then the request succeeds
    And the response field "state" is "PENDING"
    And a fresh dispute opened on the sale appears in the dispute list
    When I fetch the dispute
    Then the request succeeds
    And the response field "transfer" is the sale id
    And the response field "state" is one of "INQUIRY, PENDING"
    And the dispute's amount is the sale's amount
    And the dispute reaches the state "PENDING"
    When I list the adjustment transfers of the dispute
    Then the request succeeds
    And the list holds at least 1 item
    And every item has "type" equal to "DISPUTE"

  @spec-2.7
  Scenario: a dispute is fetched with its state, reason and details
    §2.7: state INQUIRY, PENDING, WON, LOST; reason INQUIRY, QUALITY, CLERICAL, FRAUD, TECHNICAL; dispute_details contains arn.
    When I fetch the dispute
    Then the request succeeds
    And the response field "id" starts with "DI"
    And the response field "state" is one of "INQUIRY, PENDING, WON, LOST"
    And the response field "reason" is one of "INQUIRY, QUALITY, CLERICAL, FRAUD, TECHNICAL"
    And the response field "dispute_details.arn" is present
    And the response field "_links.evidence.href" is an absolute URL
    And the response field "_links.adjustment_transfers.href" is an absolute URL
    And the link "self" names the response field "id"
    And the link "transfer" names the response field "transfer"

  Scenario: disputes are listed
    §4.6: GET /disputes lists Disputes; §2.12: the default order is created_at,desc then id,desc.
    When I list the disputes
    Then the request succeeds
    And the list holds at least 1 item
    And the items are ordered by created_at then id, newest first

  Scenario: fetching a dispute that does not exist is refused as not found
    §7: Object does not exist, on fetch, update and delete by id.
    When I fetch a dispute that does not exist
    Then the request is refused as not found

  @spec-2.8
  Scenario: evidence is uploaded to a dispute and keeps the file's name
    §4.6: evidence is uploaded as multipart/form-data, a part named file; §2.8: tags keys file-extension, content-type, file-name.
    When I upload "receipt.pdf" as evidence for the dispute
    Then the request succeeds
    And the response field "id" starts with "DF"
    And the response field "dispute" is the dispute id
    And the response field "tags.file-name" is "receipt.pdf"
    And the response field "tags.file-extension" is present
    And the response field "tags.content-type" is present
    And the response field "state" is "SUCCEEDED" (assumed: resource_values)

  Scenario: uploaded evidence is listed and fetched
    §4.6: GET /disputes/:id/evidence lists the evidence of a Dispute; GET /disputes/:dispute_id/evidence/:evidence_id fetches one.
    When I upload "invoice.pdf" as evidence for the dispute
    Then the request succeeds
    When I list the evidence of the dispute
    Then the request succeeds
    And the list contains the evidence
    When I fetch the evidence
    Then the request succeeds
    And the response field "id" is the evidence id
    And the response field "tags.file-name" is "invoice.pdf"

  Scenario: evidence for a dispute that does not exist is refused as not found
    §7: Object does not exist, on evidence and adjustment lookups.
    When I upload "receipt.pdf" as evidence for a dispute that does not exist
    Then the request is refused as not found

  Scenario: the evidence of a dispute that does not exist is not found
    §7: Object does not exist, on evidence and adjustment lookups.
    When I list the evidence of a dispute that does not exist
    Then the request is refused as not found

  Scenario: evidence that does not exist is not found
    §7: Object does not exist, on evidence and adjustment lookups.
    When I fetch evidence that does not exist
    Then the request is refused as not found

  @spec-2.2
  Scenario: the adjustment transfers of a dispute are dispute transfers
    §2.2: type DISPUTE on adjustments; adjustments carry disputed_transfer instead of self, reversals, fees and disputes.
    When I list the adjustment transfers of the dispute
    Then the request succeeds
    And the list holds at least 1 item
    And every item has "type" equal to "DISPUTE"
    And every item has "_links.disputed_transfer.href" present
    And no item has the field "_links.self"
    And no item has the field "_links.reversals"

  Scenario: the adjustment transfers of a dispute that does not exist are not found
    §7: Object does not exist, on evidence and adjustment lookups.
    When I list the adjustment transfers of a dispute that does not exist
    Then the request is refused as not found

  @sandbox @lists @spec-2.12 @spec-4.10
  Scenario: the dispute list pages by offset and limit and counts every dispute
    §2.12: page with offset, limit, count (the total number of records), default limit 20; §4.10: lists use offset, limit and sort.
    Given a card for the buyer
    And a sale of the sandbox's dispute amount
    And a fresh dispute opened on the sale appears in the dispute list
    And a sale of the sandbox's dispute amount
    And a fresh dispute opened on the sale appears in the dispute list
    When I list the disputes with "limit=1"
    Then the request succeeds
    And the list holds 1 items
    And the page offset is 0
    And the page limit is 1
    And the page count is at least 2
    And the self link carries "limit=1"
    When I list the disputes with "offset=0&limit=2&sort=created_at,asc&sort=id,asc"
    Then the request succeeds
    And the list holds 2 items
    And I remember the items
    When I list the disputes with "offset=1&limit=1&sort=created_at,asc&sort=id,asc"
    Then the request succeeds
    And the list holds 1 items
    And the items are items 1 to 2 of the remembered items
    And the page offset is 1
    And the page limit is 1
    And the page count is at least 2
    And the self link carries "offset=1"
    And the self link carries "sort=created_at,asc"
    When I list the disputes with ""
    Then the request succeeds
    And the page limit is 20
    And the page count is at least 2
    And the list holds as many items as its page allows

  @sandbox @lists @spec-2.12
  Scenario: a new dispute's evidence list is empty and still carries its page
    §2.12: a list has _embedded, _links and page with offset, limit, count; count is the total number of records; default limit is 20.
    Given a card for the buyer
    And a sale of the sandbox's dispute amount
    And a fresh dispute opened on the sale appears in the dispute list
    When I list the evidence of the dispute
    Then the request succeeds
    And the list holds 0 items
    And the page offset is 0
    And the page limit is 20
    And the page count is 0

  @sandbox @lists @spec-2.12 @spec-4.10
  Scenario: the evidence list of a dispute pages by offset and limit and counts exactly
    §2.12: page with offset, limit, count (the total number of records), default limit 20; §4.10: lists use offset, limit and sort.
    Given a card for the buyer
    And a sale of the sandbox's dispute amount
    And a fresh dispute opened on the sale appears in the dispute list
    When I upload "page-one.pdf" as evidence for the dispute
    Then the request succeeds
    When I upload "page-two.pdf" as evidence for the dispute
    Then the request succeeds
    When I upload "page-three.pdf" as evidence for the dispute
    Then the request succeeds
    When I list the evidence of the dispute
    Then the request succeeds
    And the list holds 3 items
    And the page limit is 20
    And the page count is 3
    And the items are ordered by created_at then id, newest first
    And I remember the items
    When I list the evidence of the dispute with "offset=1&limit=2"
    Then the request succeeds
    And the list holds 2 items
    And the items are items 1 to 3 of the remembered items
    And the page offset is 1
    And the page limit is 2
    And the page count is 3
    And the self link carries "offset=1"
    And the self link carries "limit=2"
    And the self link carries "sort"
    When I list the evidence of the dispute with "offset=3&limit=2"
    Then the request succeeds
    And the list holds 0 items
    And the page count is 3
