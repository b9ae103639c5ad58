"""What a served deployment needs besides Streamlit: client addresses, sign-in sessions, deployment files."""
