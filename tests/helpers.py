from config.problems import PROBLEM_CONTENT_TYPE


def assert_problem(response, status: int, code: str) -> dict:
    """Assert an RFC 9457 problem response; returns its body."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"https://uno.example/problems/{code}"
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    return body


def assert_json(response, status: int):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    return response.json()
