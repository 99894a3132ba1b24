"""Every API error is JSON with a human-readable ``detail`` message."""

from rest_framework.views import exception_handler


def json_exception_handler(exc, context):
    response = exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict) and "detail" not in response.data:
        # Validation errors come as {field: [messages]}; add one sentence on top. The API
        # reads query parameters, and a body only where it takes a POST (the lookup).
        fields = ", ".join(sorted(str(key) for key in response.data))
        request = context.get("request")
        where = "field of the request body" if request is not None and request.method == "POST" else "query parameter"
        response.data = {"detail": f"Invalid {where}: {fields}.", "errors": response.data}
    elif response is not None and isinstance(response.data, list):
        response.data = {"detail": " ".join(str(item) for item in response.data)}
    return response
