@files @spec-4.8
Feature: Files for underwriting review
  Files are created, uploaded directly or through an external link, reviewed and downloaded.
  A file starts in REQUIRES_UPLOAD, and reaching UPLOADED sends a webhook alert.

  Background:
    Given I am the platform user

  @spec-3.1
  Scenario: a file is created requiring an upload
    §3.1: create File (POST /files) gives REQUIRES_UPLOAD; §2.11: it is returned as REQUIRES_UPLOAD on creation.
    When I create a file named "conform passport"
    Then the request succeeds
    And the response field "status" is "REQUIRES_UPLOAD"
    And the response field "id" starts with "FILE_" (assumed: file_payloads)
    And the response field "display_name" is "conform passport" (assumed: file_payloads)

  @assumed @profile-file_payloads
  Scenario: a file without a display name is refused
    When I create a file without a display name
    Then the request is refused as an invalid field "/display_name"

  @spec-3.1 @spec-6 @webhooks
  Scenario: an uploaded file passes review to UPLOADED and the webhook receives the alert
    §3.1: PENDING, review approves: UPLOADED, a webhook alert is sent; §6: an HTTP POST with the payload to the Webhook's url.
    Given a webhook pointing at the kit's receiver
    And a file named "conform bank statement"
    When I upload a document to the file
    Then the request succeeds
    And the response field "status" is "PENDING" (assumed: resource_values)
    And the file's review ends in "UPLOADED"
    And the kit's receiver gets the "updated" event of the file with status "UPLOADED"

  @spec-3.1 @assumed @profile-file_reject_trigger
  Scenario: a file the review rejects does not reach UPLOADED
    Given a file named "conform {file_reject_trigger} me"
    When I upload a document to the file
    Then the request succeeds
    And the file's review ends in a status other than "UPLOADED"
    And the response field "status" is "INVALID" (assumed: resource_values)

  Scenario: a file is fetched with POST
    §4.8: POST /files/:FILE_ID: fetches a File.
    Given a file named "conform fetch"
    When I fetch the file
    Then the request succeeds
    And the response field "id" is the file id

  @assumed @profile-also_methods
  Scenario: a file is fetched with GET too
    Given a file named "conform fetch"
    When I fetch the file with GET
    Then the request succeeds
    And the response field "id" is the file id

  Scenario: files are listed
    §4.8: GET /files lists all files.
    Given a file named "conform listed"
    When I list the files
    Then the request succeeds
    And the list contains the file

  Scenario: an uploaded file is downloaded unchanged
    §4.8: POST /files/:FILE_ID:/download downloads an uploaded file.
    Given a file named "conform download"
    When I upload a document to the file
    Then the request succeeds
    When I download the file
    Then the request succeeds
    And the download is the uploaded document

  Scenario: an upload link is created, fetched and listed
    §4.8: POST /files/:FILE_ID:/external_links creates an upload link; GET gets one external link and lists a File's.
    Given a file named "conform link"
    When I create an upload link for the file
    Then the request succeeds
    And the response field "type" is "UPLOAD" (assumed: file_payloads)
    And the response field "url" is an absolute URL
    When I fetch the upload link
    Then the request succeeds
    And the response field "id" is the external link id
    When I list the upload links of the file
    Then the request succeeds
    And the list contains the external link

  @extension
  Scenario: a document is uploaded through an upload link without credentials
    §4.8: a PUT to the external link URL uploads a user's file to the File; §3.1: review approves: UPLOADED.
    Given a file named "conform shared upload"
    When I create an upload link for the file
    Then the request succeeds
    When I upload a document through the upload link
    Then the request succeeds
    And the file's review ends in "UPLOADED"

  @extension @assumed @profile-extensions
  Scenario: an upload link that does not exist refuses uploads
    When I upload a document through an upload link that does not exist
    Then the request is refused as not found

  Scenario Outline: a missing file is not found when I <action>
    §7: Object does not exist, on fetch, update and delete by id.
    When I <action>
    Then the request is refused as not found

    Examples:
      | action                                           |
      | fetch a file that does not exist                 |
      | upload a document to a file that does not exist  |
      | create an upload link for a file that does not exist |

  Scenario: an upload link that does not exist is not found
    §7: Object does not exist, on fetch, update and delete by id.
    Given a file named "conform no link"
    When I fetch an upload link that does not exist
    Then the request is refused as not found

  @lists @spec-2.12 @spec-4.10
  Scenario: the file list pages by offset and limit and counts every file
    §2.12: page with offset, limit, count (the total number of records); the self link carries offset, limit and sort; §4.10.
    Given a file named "conform page one"
    And a file named "conform page two"
    And a file named "conform page three"
    When I list the files with "offset=0&limit=2&sort=created_at,asc&sort=id,asc"
    Then the request succeeds
    And the list holds 2 items
    And the page offset is 0
    And the page limit is 2
    And the page count is at least 3
    And I remember the items
    When I list the files with "offset=2&limit=2&sort=created_at,asc&sort=id,asc"
    Then the request succeeds
    And the list holds at least 1 item
    And the list holds as many items as its page allows
    And the items share none with the remembered items
    And the page offset is 2
    And the page limit is 2
    And the page count is at least 3
    And the self link carries "offset=2"
    And the self link carries "limit=2"
    And the self link carries "sort=created_at,asc"

  @lists @spec-2.12 @spec-8
  Scenario: the file list holds 20 files by default
    §2.12: default limit is 20 (§8: list page size default 20); count is the total number of records.
    Given a file named "conform default page"
    When I list the files with ""
    Then the request succeeds
    And the list holds at least 1 item
    And the page offset is 0
    And the page limit is 20
    And the page count is at least 1
    And the list holds as many items as its page allows
