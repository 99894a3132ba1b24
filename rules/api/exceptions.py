"""Every API error is JSON with a human-readable ``detail`` message."""

from rest_framework.views import exception_handler


def json_exception_handler(exc, context):
    response = exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict) and "detail" not in response.data:
        # Validation errors come as {field: [messages]}; add one sentence on top.
        fields = ", ".join(sorted(str(key) for key in response.data))
        response.data = {"detail": f"Invalid query parameter: {fields}.", "errors": response.data}
    elif response is not None and isinstance(response.data, list):
        response.data = {"detail": " ".join(str(item) for item in response.data)}
    return response
